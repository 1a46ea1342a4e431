"""Snakemake entry point: the throughput table of every ground-truth run."""

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.groundtruth.throughput import throughput_by_protein, throughput_table
from westbench.workflow import run_script


def main(snakemake):
    table = throughput_table(snakemake.input.summaries)
    table.to_csv(snakemake.output.csv, index=False)
    throughput_by_protein(table).to_csv(snakemake.output.by_protein, index=False)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
