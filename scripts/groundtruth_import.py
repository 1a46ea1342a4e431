"""Snakemake entry point: one imported trajectory becomes one ground-truth run."""

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.groundtruth.importer import import_run
from westbench.workflow import run_script, write_json


def main(snakemake):
    settings = snakemake.params.settings
    summary = import_run(
        snakemake.input.trajectory,
        snakemake.input.get("topology"),
        snakemake.input.prepared,
        snakemake.output,
        protein=snakemake.wildcards.protein,
        start=snakemake.wildcards.start,
        stride=settings["stride"],
        forces=snakemake.input.get("forces"),
        interval_ps=settings["interval_ps"],
        residues=settings["residues"],
        on_nonfinite=snakemake.params.on_nonfinite,
    )
    write_json(summary, snakemake.output.summary)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
