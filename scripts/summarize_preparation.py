"""Snakemake entry point: one summary per protein, and the preparation table across proteins."""

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.prepare.summary import merge_summaries, preparation_table
from westbench.workflow import run_script, write_json


def main(snakemake):
    if snakemake.rule == "preparation_table":
        preparation_table(snakemake.input.summaries).to_csv(snakemake.output.csv, index=False)
    else:
        write_json(merge_summaries(snakemake.input.structure, snakemake.input.fix, snakemake.input.systems), snakemake.output.json)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
