"""Snakemake entry point: the protein's one ground-truth macrostate model, used by every engine's metrics."""

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.metrics.score import fit_macrostate_model
from westbench.workflow import run_script


def main(snakemake):
    fit_macrostate_model(
        snakemake.input.groundtruth, snakemake.params.settings, snakemake.params.seed, snakemake.output[0]
    )


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
