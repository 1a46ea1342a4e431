"""Snakemake entry point: the metric suite of one engine against the ground truth, and its figures where named."""

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
        figures_dir=_figures_dir(snakemake.output),
        macrostates=snakemake.input.macrostates,
        training_record=_one(snakemake.input.get("training")),
    )


def _figures_dir(output):
    """The registry's folder where the rule names its figures as outputs, else None (draw none)."""
    first = figures(ENGINE)[0].name
    return Path(output[first]).parent if first in output.keys() else None


def _one(files):
    """The one file of an input that is empty or one file (a string, or a list of one)."""
    if not files:
        return None
    return files if isinstance(files, str) else files[0]


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
