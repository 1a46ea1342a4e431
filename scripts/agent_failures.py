"""Snakemake entry point: process scorecards per agent, process against score, completion claims, tool errors and
breach signatures (tables and figures)."""

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.agents.failures import ANALYSIS_OUTPUTS, analyse_failures
from westbench.workflow import run_script


def main(snakemake):
    analyse_failures(
        snakemake.input.trials,
        snakemake.input.judges,
        snakemake.input.scorecards,
        snakemake.input.gate,
        tasks=snakemake.params.tasks,
        tasks_dir=snakemake.params.tasks_dir,
        gate_agents=snakemake.params.gate_agents,
        settings=snakemake.params.settings,
        seed=snakemake.params.seed,
        outputs={name: snakemake.output[name] for name in ANALYSIS_OUTPUTS},
    )


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
