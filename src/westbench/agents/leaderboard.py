"""Leaderboard of agents and models over the gated tasks, with fixed denominators.

Per trial: score = 100 x correctness while the process criteria are not judged, otherwise
100 x (correctness + process) / 2; strict pass = every check passed and every criterion passed
(undecided, NaN, without a judge). Missing trials are added as status ``missing`` with score 0, so
every agent and model is divided by (gated tasks x attempts).

Per agent and model: Strict-Pass@1, mean correctness, mean process, Pass Rate (score >= 99.9),
Avg. Score, pass@k (unbiased estimator over attempts, pass = score >= 99.9), tokens and cost,
and the count of each status.

Examples
--------
>>> round(pass_at_k(n=3, c=1, k=1), 6), pass_at_k(n=3, c=1, k=3), pass_at_k(n=3, c=0, k=2)
(0.333333, 1.0, 0.0)
>>> trials = pd.DataFrame([{"task": "a", "agent": "x", "model": "m", "attempt": 1, "status": "passed",
...                         "correctness": 1.0, "process": None}])
>>> grid = complete_grid(trials, tasks=["a", "b"], runs=[("x", "m")], attempts=1)
>>> grid.sort_values("task")["status"].tolist(), grid["score"].tolist()
(['passed', 'missing'], [100.0, 0.0])
>>> board = leaderboard(grid, attempts=1)
>>> float(board.loc[0, "pass_rate"]), float(board.loc[0, "avg_score"])
(0.5, 50.0)
"""

from __future__ import annotations

import json
from math import comb
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from westbench.agents.grading import STATUSES

PASS_SCORE = 99.9


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from n attempts with c passes (Chen et al. 2021)."""
    if k > n:
        raise ValueError(f"pass@{k} needs at least {k} attempts, got {n}")
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def trial_score(correctness: float, process: float | None) -> float:
    """Score 0-100 of one trial."""
    correctness = 0.0 if correctness is None or pd.isna(correctness) else float(correctness)
    if process is None or pd.isna(process):
        return 100.0 * correctness
    return 100.0 * (correctness + float(process)) / 2.0


TRIAL_COLUMNS = ("task", "agent", "model", "model_name", "attempt", "status", "reason", "correctness", "tokens_in",
                 "tokens_out", "cost_usd", "wall_s", "overhead_s", "difficulty", "category")


def read_trials(trial_paths: Iterable[str | Path], judge_paths: Iterable[str | Path]) -> pd.DataFrame:
    """One row per trial.json with its judge.json's process score, joined on (task, agent, model, attempt).

    ``model`` is the agent's model id in both files; the judge's own model is ``judge_model``.
    """
    judges = {}
    for path in judge_paths:
        judge = json.loads(Path(path).read_text())
        judges[(judge["task"], judge["agent"], judge["model"], judge["attempt"])] = judge
    rows = []
    for path in trial_paths:
        trial = json.loads(Path(path).read_text())
        judge = judges.get((trial["task"], trial["agent"], trial["model"], trial["attempt"]), {})
        rows.append({key: trial.get(key) for key in TRIAL_COLUMNS}
                    | {"process": judge.get("process"), "all_criteria_passed": judge.get("all_passed"),
                       "judged": judge.get("judged", False)})
    return pd.DataFrame(rows)


def complete_grid(trials: pd.DataFrame, tasks: Sequence[str], runs: Iterable[tuple[str, str]], attempts: int,
                  task_info: Mapping[str, Mapping] | None = None) -> pd.DataFrame:
    """Every (task, agent, model, attempt) of the design, missing ones as failures with score 0."""
    keys = pd.DataFrame([{"task": t, "agent": a, "model": m, "attempt": k}
                         for t in tasks for a, m in runs for k in range(1, attempts + 1)],
                        columns=["task", "agent", "model", "attempt"])
    merged = keys.merge(trials, on=["task", "agent", "model", "attempt"], how="left")
    merged["status"] = merged["status"].fillna("missing")
    merged["correctness"] = merged["correctness"].fillna(0.0).astype(float)
    if "process" not in merged:
        merged["process"] = np.nan
    merged["process"] = pd.to_numeric(merged["process"], errors="coerce")
    merged["score"] = [trial_score(c, p) for c, p in zip(merged["correctness"], merged["process"])]
    if "all_criteria_passed" not in merged:
        merged["all_criteria_passed"] = np.nan
    strict = []
    for correctness, criteria in zip(merged["correctness"], merged["all_criteria_passed"]):
        if correctness < 1.0:
            strict.append(0.0)  # a failed check decides it whatever the judge says
        elif criteria is None or pd.isna(criteria):
            strict.append(np.nan)
        else:
            strict.append(1.0 if bool(criteria) else 0.0)
    merged["strict_pass"] = strict
    merged["passed"] = merged["score"] >= PASS_SCORE
    for column in ("tokens_in", "tokens_out", "cost_usd"):
        merged[column] = pd.to_numeric(merged[column], errors="coerce") if column in merged else np.nan
    if task_info:
        merged["difficulty"] = merged["task"].map(lambda t: task_info[t]["difficulty"])
        merged["category"] = merged["task"].map(lambda t: task_info[t]["category"])
    return merged


def _summary(group: pd.DataFrame, attempts: int, ks: Sequence[int]) -> dict:
    first = group[group["attempt"] == 1]
    row = {
        "tasks": group["task"].nunique(),
        "trials": len(group),
        "strict_pass_at_1": first["strict_pass"].mean() if first["strict_pass"].notna().all() else np.nan,
        "mean_correctness": group["correctness"].mean(),
        "mean_process": group["process"].mean() if group["process"].notna().all() else np.nan,
        "judged_share": group["process"].notna().mean(),
        "pass_rate": group["passed"].mean(),
        "avg_score": group["score"].mean(),
    }
    for k in ks:
        if k <= attempts:
            per_task = group.groupby("task")["passed"].agg(["size", "sum"])
            row[f"pass_at_{k}"] = float(np.mean([pass_at_k(int(n), int(c), k) for n, c in zip(per_task["size"], per_task["sum"])]))
    row["tokens_in"] = group["tokens_in"].sum(min_count=1)
    row["tokens_out"] = group["tokens_out"].sum(min_count=1)
    row["cost_usd"] = group["cost_usd"].sum(min_count=1)
    for status in (*STATUSES, "missing"):
        row[f"n_{status}"] = int((group["status"] == status).sum())
    return row


def leaderboard(grid: pd.DataFrame, attempts: int, ks: Sequence[int] = (1,), by: Sequence[str] = ()) -> pd.DataFrame:
    """One row per agent and model (and per ``by`` columns), best Avg. Score first."""
    keys = ["agent", "model", *by]
    rows = [{**dict(zip(keys, key if isinstance(key, tuple) else (key,))), **_summary(group, attempts, ks)}
            for key, group in grid.groupby(keys, sort=True)]
    table = pd.DataFrame(rows)
    if table.empty:
        return pd.DataFrame(columns=[*keys, "tasks", "trials", "pass_rate", "avg_score"])
    return table.sort_values([*by, "avg_score"], ascending=[True] * len(by) + [False], kind="stable").reset_index(drop=True)


def plot_leaderboard(board: pd.DataFrame, grid: pd.DataFrame, path: str) -> None:
    """Figure: Avg. Score and Pass Rate per agent/model, and the score of every task."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if board.empty or grid.empty:
        fig, axis = plt.subplots(figsize=(6, 2))
        axis.text(0.5, 0.5, "no task passed the oracle gate", ha="center", va="center")
        axis.axis("off")
        fig.savefig(path, dpi=120)
        plt.close(fig)
        return
    labels = [f"{a}\n{m}" for a, m in zip(board["agent"], board["model"])]
    pivot = grid.pivot_table(index="task", columns=["agent", "model"], values="score", aggfunc="mean")
    fig, axes = plt.subplots(1, 2, figsize=(12, max(4, 0.35 * len(pivot) + 1.5)), gridspec_kw={"width_ratios": [1, 1.4]})
    x = np.arange(len(board))
    axes[0].bar(x - 0.2, board["avg_score"], 0.4, label="Avg. Score")
    axes[0].bar(x + 0.2, 100 * board["pass_rate"], 0.4, label="Pass Rate (%)")
    axes[0].set_xticks(x, labels)
    axes[0].set_ylim(0, 105)
    axes[0].set_ylabel("score / %")
    axes[0].legend()
    axes[0].set_title("Agents over gated tasks")
    image = axes[1].imshow(pivot.to_numpy(dtype=float), vmin=0, vmax=100, cmap="viridis", aspect="auto")
    axes[1].set_yticks(range(len(pivot)), pivot.index)
    axes[1].set_xticks(range(pivot.shape[1]), [f"{a}\n{m}" for a, m in pivot.columns])
    axes[1].set_title("Score per task (mean over attempts)")
    fig.colorbar(image, ax=axes[1], label="score")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
