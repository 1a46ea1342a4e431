"""Snakemake entry point: composition table and figure of the selected task suite."""

from pathlib import Path

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.agents.composition import write_composition
from westbench.workflow import run_script


def main(snakemake):
    write_composition([Path(p).parent for p in snakemake.input.tasks], snakemake.output.table, snakemake.output.figure)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
