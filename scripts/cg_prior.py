"""Snakemake entry point: westbench's prior alone, fitted to the ground truth, for a user's model (prior: fitted)."""

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.cg.train import fit_prior_model
from westbench.workflow import run_script


def main(snakemake):
    fit_prior_model(
        snakemake.params.proteins, snakemake.params.cg, seed=snakemake.params.seed, path=snakemake.output.prior
    )


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
