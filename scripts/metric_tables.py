"""Snakemake entry point: W1, KL and coverage tables across every protein and engine."""

import _library  # noqa: F401  (puts src/ on sys.path)

from pathlib import Path

import pandas as pd

from westbench.metrics.tables import coverage_table, divergence_table, read_tidy
from westbench.workflow import run_script


def main(snakemake):
    tidy = read_tidy(snakemake.input.metrics)
    divergence_table(tidy, "w1").to_csv(snakemake.output.w1, index=False)
    divergence_table(tidy, "kl").to_csv(snakemake.output.kl, index=False)
    # results/<protein>/we/<engine>/cost.csv or results/<protein>/external/<engine>/cost.csv
    costs = {(Path(path).parts[-4], Path(path).parts[-2]): pd.read_csv(path) for path in snakemake.input.costs}
    coverage_table(tidy, costs, snakemake.params.thresholds, snakemake.params.platform,
                   reference_engine=snakemake.params.reference_engine).to_csv(snakemake.output.coverage, index=False)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
