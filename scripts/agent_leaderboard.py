"""Snakemake entry point: trial table, leaderboard (MDArena, FrontierChallenge, error bars), breakdowns, figures."""

import _library  # noqa: F401  (puts src/ on sys.path)

import json
from pathlib import Path

from westbench.agents.composition import suite_composition, tagged_grid
from westbench.agents.leaderboard import (complete_grid, leaderboard, plot_cost_vs_success, plot_leaderboard,
                                          plot_outcomes, read_trials)
from westbench.workflow import run_script


def main(snakemake):
    settings = snakemake.params.settings
    gate = json.loads(Path(snakemake.input.gate).read_text())
    trials = read_trials(snakemake.input.trials, snakemake.input.judges)
    tasks = [t for t in snakemake.params.tasks if t in gate["passed"]]
    info = {t: {"difficulty": d, "category": c} for t, d, c in zip(trials["task"], trials["difficulty"], trials["category"])}
    grid = complete_grid(trials.drop(columns=["difficulty", "category"]), tasks, snakemake.params.runs,
                         settings["attempts"], task_info=info)
    grid.to_csv(snakemake.output.trials, index=False)
    ks = [k for k in settings["pass_at_k"] if k <= settings["attempts"]]
    options = {"seed": snakemake.params.seed, "resamples": settings["bootstrap_resamples"]}
    board = leaderboard(grid, settings["attempts"], ks, **options)
    board["gated_tasks"] = len(tasks)
    board["excluded_tasks"] = ";".join(sorted(gate["failed"]))
    board.to_csv(snakemake.output.leaderboard, index=False)
    suite = suite_composition(snakemake.params.tasks_dir)
    by_tag = tagged_grid(grid.drop(columns=["difficulty", "category"]), suite[suite["task"].isin(tasks)])
    leaderboard(by_tag, settings["attempts"], ks, by=["tag", "value"], **options).to_csv(snakemake.output.by_tag, index=False)
    plot_leaderboard(board, grid, snakemake.output.figure)
    plot_outcomes(grid, snakemake.output.outcomes)
    plot_cost_vs_success(board, snakemake.output.cost)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
