"""Snakemake entry point: W1, KL and coverage tables across every protein and engine."""

import _library  # noqa: F401  (puts src/ on sys.path)
import pandas as pd

from westbench.metrics.tables import coverage_table, divergence_table, read_tidy
from westbench.workflow import run_script


def main(snakemake):
    tidy = read_tidy(snakemake.input.metrics)
    divergence_table(tidy, "w1").to_csv(snakemake.output.w1, index=False)
    divergence_table(tidy, "kl").to_csv(snakemake.output.kl, index=False)
    # The rule passes each cost file's (protein, engine) in input order: identities are data, not path parts.
    costs = {
        tuple(ids): pd.read_csv(path)
        for ids, path in zip(snakemake.params.cost_ids, snakemake.input.costs, strict=True)
    }
    coverage_table(
        tidy,
        costs,
        snakemake.params.thresholds,
        snakemake.params.platform,
        reference_engine=snakemake.params.reference_engine,
    ).to_csv(snakemake.output.coverage, index=False)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
