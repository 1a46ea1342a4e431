"""Snakemake entry point: one ground-truth run (explicit solvent, or groundtruth.solvent).

Resumes from its checkpoint.
"""

from pathlib import Path

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.groundtruth.production import run_groundtruth
from westbench.workflow import run_script, write_json


def main(snakemake):
    start = snakemake.wildcards.start
    summary = run_groundtruth(
        Path(snakemake.input.starts) / f"{start}.pdb",
        snakemake.params.workdir,
        snakemake.output,
        protein=snakemake.wildcards.protein,
        start=start,
        groundtruth=snakemake.params.groundtruth,
        preparation=snakemake.params.preparation,
        platform=snakemake.params.platform,
        seed=snakemake.params.seed,
        threads=snakemake.threads,
    )
    write_json(summary, snakemake.output.summary)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
