"""The leaderboard step: every trial over the gated tasks to the tables and figures a reader sees.

:func:`score_agents` reads the trials, judge verdicts and the oracle gate, completes the fixed
trial grid (missing trials count as failures), and writes the leaderboard (MDArena and
FrontierChallenge counts with 95 % intervals), its breakdown by task tag, the trial table and
three figures. The statistics live in :mod:`westbench.agents.statistics`, the reading of the trial
records in :mod:`westbench.agents.trials`, the figures in :mod:`westbench.agents.figures`.

Examples
--------
>>> import json, tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> (folder / "t1").mkdir(); _ = (folder / "t1" / "task.toml").write_text('[metadata]\\ndifficulty = "easy"\\n')
>>> _ = (folder / "gate.json").write_text(json.dumps({"passed": ["t1"], "failed": {}}))
>>> _ = (folder / "trial.json").write_text(json.dumps({"task": "t1", "agent": "oracle", "model": "none",
...     "attempt": 1, "status": "passed", "correctness": 1.0, "difficulty": "easy", "category": "md"}))
>>> outputs = {name: folder / f"{name}.{'png' if name in ('figure', 'outcomes', 'cost') else 'csv'}"
...            for name in LEADERBOARD_OUTPUTS}
>>> board = score_agents([folder / "trial.json"], [], folder / "gate.json", tasks=["t1"], runs=[("oracle", "none")],
...                      tasks_dir=folder, settings={"attempts": 1, "pass_at_k": [1], "bootstrap_resamples": 50},
...                      seed=1, outputs=outputs)
>>> board.loc[0, "agent"], int(board.loc[0, "gated_tasks"]), float(board.loc[0, "pass_rate"])
('oracle', 1, 1.0)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping, Sequence

import pandas as pd

from westbench.agents.composition import suite_composition, tagged_grid
from westbench.agents.figures import plot_cost_vs_success, plot_leaderboard, plot_outcomes
from westbench.agents.statistics import complete_grid, leaderboard
from westbench.agents.trials import read_trials

#: What :func:`score_agents` writes: three tables and three figures.
LEADERBOARD_OUTPUTS = ("leaderboard", "by_tag", "trials", "figure", "outcomes", "cost")


def score_agents(
    trial_files: Sequence,
    judge_files: Sequence,
    gate_file,
    *,
    tasks: Sequence[str],
    runs: Sequence[Sequence[str]],
    tasks_dir,
    settings: Mapping,
    seed: int,
    outputs: Mapping,
) -> pd.DataFrame:
    """Write the leaderboard tables and figures; return the leaderboard.

    Parameters
    ----------
    trial_files, judge_files : sequence of path
        ``trial.json`` of every trial and ``judge.json`` of those judged.
    gate_file : path
        The oracle gate's verdict (``passed`` tasks; ``failed`` ones with why): only passed tasks count.
    tasks : sequence of str
        The selected tasks, in order; runs : sequence of (agent, model).
    tasks_dir : path
        The task folders (their ``task.toml`` tags give the breakdown).
    settings : mapping
        ``attempts``, ``pass_at_k``, ``bootstrap_resamples`` (the plan's job ``agent_leaderboard``,
        :mod:`westbench.plan.jobkeys`).
    seed : int
        Seed of the bootstrap intervals.
    outputs : mapping
        A path for each name in :data:`LEADERBOARD_OUTPUTS`.
    """
    missing = [name for name in LEADERBOARD_OUTPUTS if name not in outputs]
    if missing:
        raise ValueError(f"outputs lacks {missing}")
    gate = json.loads(Path(gate_file).read_text())
    trials = read_trials(trial_files, judge_files)
    gated = [task for task in tasks if task in gate["passed"]]
    info = {
        task: {"difficulty": difficulty, "category": category}
        for task, difficulty, category in zip(trials["task"], trials["difficulty"], trials["category"])
    }
    runs = [tuple(run) for run in runs]
    grid = complete_grid(
        trials.drop(columns=["difficulty", "category"]), gated, runs, settings["attempts"], task_info=info
    )
    grid.to_csv(outputs["trials"], index=False)
    ks = [k for k in settings["pass_at_k"] if k <= settings["attempts"]]
    options = {"seed": seed, "resamples": settings["bootstrap_resamples"]}
    board = leaderboard(grid, settings["attempts"], ks, **options)
    board["gated_tasks"] = len(gated)
    board["excluded_tasks"] = ";".join(sorted(gate["failed"]))
    rate = gate.get("near_miss_catch_rate") or {}
    board["near_miss_catch_rate"] = rate.get("catch_rate")  # the suite's: near misses its verifiers catch
    board["near_misses"] = rate.get("near_misses", 0)
    board.to_csv(outputs["leaderboard"], index=False)
    suite = suite_composition(tasks_dir)
    by_tag = tagged_grid(grid.drop(columns=["difficulty", "category"]), suite[suite["task"].isin(gated)])
    leaderboard(by_tag, settings["attempts"], ks, by=["tag", "value"], **options).to_csv(outputs["by_tag"], index=False)
    plot_leaderboard(board, grid, outputs["figure"])
    plot_outcomes(grid, outputs["outcomes"])
    plot_cost_vs_success(board, outputs["cost"])
    return board
