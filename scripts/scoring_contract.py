"""Snakemake entry point: the scoring contract on one engine's real frames (westbench.metrics.contract)."""

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.metrics.contract import contract_report
from westbench.workflow import run_script


def main(snakemake):
    contract_report(
        snakemake.input.groundtruth,
        snakemake.input.model,
        snakemake.input.record,
        snakemake.output[0],
        protein=snakemake.wildcards.protein,
        engine=snakemake.wildcards.engine,
        macrostates=snakemake.input.macrostates,
    )


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
