"""Snakemake entry point: the process scorecard of one trial (six capabilities, judged or not judged)."""

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.agents.process import write_scorecard
from westbench.workflow import run_script


def main(snakemake):
    write_scorecard(
        snakemake.input.trial,
        snakemake.params.task_dir,
        snakemake.params.judge,
        snakemake.params.cache_dir,
        snakemake.output.process,
    )


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
