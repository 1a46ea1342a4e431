"""Snakemake entry point: the preparation table across proteins (one row each)."""

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.prepare.records import write_preparation_table
from westbench.workflow import run_script


def main(snakemake):
    write_preparation_table(snakemake.input.summaries, snakemake.output.csv)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
