"""Snakemake entry point: trial table, leaderboard (MDArena, FrontierChallenge, error bars), breakdowns, figures."""

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.agents.leaderboard import LEADERBOARD_OUTPUTS, score_agents
from westbench.workflow import run_script


def main(snakemake):
    score_agents(
        snakemake.input.trials,
        snakemake.input.judges,
        snakemake.input.gate,
        tasks=snakemake.params.tasks,
        runs=snakemake.params.runs,
        tasks_dir=snakemake.params.tasks_dir,
        settings=snakemake.params.settings,
        seed=snakemake.params.seed,
        outputs={name: snakemake.output[name] for name in LEADERBOARD_OUTPUTS},
    )


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
