"""Snakemake entry point: the metric suite and figures of one engine against the ground truth."""

from pathlib import Path

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.metrics.figure_list import ENGINE, figures
from westbench.metrics.score import score_engine
from westbench.workflow import run_script


def main(snakemake):
    score_engine(
        snakemake.input.groundtruth,
        snakemake.input.model,
        {**snakemake.params.settings, "seed": snakemake.params.seed},
        protein=snakemake.wildcards.protein,
        engine=snakemake.wildcards.engine,
        json_path=snakemake.output.json,
        csv_path=snakemake.output.csv,
        figures_dir=Path(snakemake.output[figures(ENGINE)[0].name]).parent,  # the registry's folder
        macrostates=snakemake.input.macrostates,
        training_record=_one(snakemake.input.get("training")),
    )


def _one(files):
    """The one file of an input that is empty or one file (a string, or a list of one)."""
    if not files:
        return None
    return files if isinstance(files, str) else files[0]


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
