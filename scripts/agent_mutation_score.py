"""Snakemake entry point: every task's mutants (mutation.csv) and mutation scores (mutation_score.csv)."""

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.agents.mutation import write_mutation_tables
from westbench.workflow import run_script


def main(snakemake):
    write_mutation_tables(
        snakemake.input.tasks, snakemake.output.mutants, snakemake.output.scores, snakemake.output.json
    )


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
