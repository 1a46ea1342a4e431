"""Snakemake entry point: one protein's preparation summary (structure, PDBFixer report, solvent models)."""

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.prepare.records import write_summary
from westbench.workflow import run_script


def main(snakemake):
    write_summary(snakemake.input.structure, snakemake.input.fix, snakemake.input.systems, snakemake.output.json)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
