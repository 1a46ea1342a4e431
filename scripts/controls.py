"""Snakemake entry point: the controls of one protein's run (engines with a known answer made from its ground truth)."""

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.metrics.controls import run_controls
from westbench.workflow import run_script


def main(snakemake):
    run_controls(
        snakemake.input.groundtruth,
        snakemake.input.tica,
        snakemake.input.macrostates,
        snakemake.params.settings,
        snakemake.params.metrics,
        snakemake.params.seed,
        protein=snakemake.wildcards.protein,
        json_path=snakemake.output.json,
        csv_path=snakemake.output.csv,
    )


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
