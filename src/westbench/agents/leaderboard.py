"""Leaderboard of agents and models over the gated tasks: MDArena and FrontierChallenge counts, with error bars.

Every function takes and returns DataFrames (one row per trial, or per agent/model and ``by`` group),
so breakdowns by any task tag compose with them.

Per trial (:func:`complete_grid`); missing trials are added as status ``missing`` with correctness 0,
so every agent and model is divided by (gated tasks x attempts):

* ``completed``: the agent finished (status ``passed`` or ``failed``). An agent timeout or error is a
  failure whatever its verifier scored; the verifier's score stays as ``correctness`` (partial credit).
* ``checks_pass`` (MDArena's pass, used by Pass Rate and pass@k): completed and every deterministic
  check passed (correctness 1).
* ``strict_pass`` (MDArena's Strict-Pass): ``checks_pass`` and every rubric criterion met; 0 when a
  check failed or the agent did not complete, undefined (NaN) when the criteria were not judged.
* ``process``: the fraction of rubric criteria met (MDArena; :mod:`westbench.agents.judge` decides
  each criterion over the judge repeats); ``judgement`` says ``judged`` or ``not judged``.
* ``fc_score`` (FrontierChallenge, 0-100): 100 x correctness, or 100 x (correctness + mean judge
  value) / 2 when judged; 0 for a missing, crashed, timed-out or errored submission. ``fc_pass`` is
  ``fc_score >= 99.9``.

Per agent and model (:func:`leaderboard`): Strict-Pass@1 (attempt 1; undefined while any of its
trials is unjudged), Pass Rate, pass@k (unbiased estimator over attempts), mean correctness (partial
credit), mean process, FrontierChallenge Avg. Score and Pass Rate, each rate with its Wilson 95 %
interval and each mean with a seeded percentile-bootstrap 95 % interval (``*_lo``, ``*_hi``); the
count of every status; tokens and cost (total and per task); wall time per trial (mean, median,
90th percentile, max).

Examples
--------
>>> round(pass_at_k(n=3, c=1, k=1), 6), pass_at_k(n=3, c=1, k=3), pass_at_k(n=3, c=0, k=2)
(0.333333, 1.0, 0.0)
>>> trials = pd.DataFrame([{"task": "a", "agent": "x", "model": "m", "attempt": 1, "status": "passed",
...                         "correctness": 1.0, "process": None},
...                        {"task": "b", "agent": "x", "model": "m", "attempt": 1, "status": "agent_timeout",
...                         "correctness": 1.0, "process": None}])
>>> grid = complete_grid(trials, tasks=["a", "b", "c"], runs=[("x", "m")], attempts=1)
>>> grid.sort_values("task")[["status", "checks_pass", "correctness", "fc_score"]].values.tolist()
[['passed', True, 1.0, 100.0], ['agent_timeout', False, 1.0, 0.0], ['missing', False, 0.0, 0.0]]
>>> board = leaderboard(grid, attempts=1)
>>> round(float(board.loc[0, "pass_rate"]), 3), round(float(board.loc[0, "pass_rate_lo"]), 3)
(0.333, 0.061)
"""

from __future__ import annotations

import json
from math import comb
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from westbench.agents.grading import PASS_TOLERANCE, STATUSES

PASS_SCORE = 99.9
COMPLETED = ("passed", "failed")
OUTCOMES = ("passed", "failed", "agent_timeout", "agent_error", "environment_error", "verifier_error", "missing")
OUTCOME_COLORS = {"passed": "#2ca02c", "failed": "#d62728", "agent_timeout": "#ff7f0e", "agent_error": "#9467bd",
                  "environment_error": "#7f7f7f", "verifier_error": "#8c564b", "missing": "#c7c7c7"}
CONFIDENCE = 0.95


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from n attempts with c passes (Chen et al. 2021)."""
    if k > n:
        raise ValueError(f"pass@{k} needs at least {k} attempts, got {n}")
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def wilson_interval(successes: int, trials: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval of a binomial rate (scipy's ``binomtest``); NaN for no trials.

    >>> [round(v, 4) for v in wilson_interval(7, 10)]
    [0.3968, 0.8922]
    """
    if trials == 0:
        return (np.nan, np.nan)
    from scipy.stats import binomtest

    interval = binomtest(int(successes), int(trials)).proportion_ci(confidence_level=confidence, method="wilson")
    return (float(interval.low), float(interval.high))


def bootstrap_interval(values, seed: int, resamples: int = 2000, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Percentile-bootstrap interval of a mean (scipy's ``bootstrap``, seeded); NaN when empty or undefined.

    >>> bootstrap_interval([5.0, 5.0], seed=1)
    (5.0, 5.0)
    """
    values = np.asarray(values, dtype=float)
    if values.size == 0 or np.isnan(values).any():
        return (np.nan, np.nan)
    if np.all(values == values[0]):
        return (float(values[0]), float(values[0]))
    from scipy.stats import bootstrap

    result = bootstrap((values,), np.mean, n_resamples=resamples, confidence_level=confidence, method="percentile",
                       rng=np.random.default_rng(seed))
    return (float(result.confidence_interval.low), float(result.confidence_interval.high))


def fc_score(status: str, correctness: float, process_mean: float | None) -> float:
    """FrontierChallenge score 0-100 of one trial (module docstring)."""
    if status not in COMPLETED:
        return 0.0
    correctness = 0.0 if correctness is None or pd.isna(correctness) else float(correctness)
    if process_mean is None or pd.isna(process_mean):
        return 100.0 * correctness
    return 100.0 * (correctness + float(process_mean)) / 2.0


TRIAL_COLUMNS = ("task", "agent", "model", "model_name", "attempt", "status", "reason", "correctness", "tokens_in",
                 "tokens_out", "cost_usd", "wall_s", "overhead_s", "difficulty", "category")


def read_trials(trial_paths: Iterable[str | Path], judge_paths: Iterable[str | Path]) -> pd.DataFrame:
    """One row per trial.json with its judge.json's scores, joined on (task, agent, model, attempt).

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
                    | {"process": judge.get("process"), "process_mean": judge.get("process_mean"),
                       "all_criteria_passed": judge.get("all_passed"), "judged": bool(judge.get("judged", False)),
                       "judge_cuts": len(judge.get("cuts") or []),
                       # the plain fraction of all checks (format checks included), beside correctness (science only)
                       "checks_fraction": (trial.get("rewards") or {}).get("checks_fraction")})
    return pd.DataFrame(rows)


def complete_grid(trials: pd.DataFrame, tasks: Sequence[str], runs: Iterable[tuple[str, str]], attempts: int,
                  task_info: Mapping[str, Mapping] | None = None) -> pd.DataFrame:
    """Every (task, agent, model, attempt) of the design with the per-trial counts (module docstring)."""
    keys = pd.DataFrame([{"task": t, "agent": a, "model": m, "attempt": k}
                         for t in tasks for a, m in runs for k in range(1, attempts + 1)],
                        columns=["task", "agent", "model", "attempt"])
    merged = keys.merge(trials, on=["task", "agent", "model", "attempt"], how="left")
    merged["status"] = merged["status"].fillna("missing")
    merged["correctness"] = pd.to_numeric(merged["correctness"], errors="coerce").fillna(0.0).astype(float)
    for column in ("process", "process_mean", "all_criteria_passed", "tokens_in", "tokens_out", "cost_usd", "wall_s",
                   "checks_fraction"):
        merged[column] = pd.to_numeric(merged[column], errors="coerce") if column in merged else np.nan
    if "process_mean" not in trials:  # records without it: the fraction met stands in
        merged["process_mean"] = merged["process"]
    merged["judgement"] = np.where(merged["process"].notna(), "judged", "not judged")
    merged["completed"] = merged["status"].isin(COMPLETED)
    merged["checks_pass"] = merged["completed"] & (merged["correctness"] >= 1.0 - PASS_TOLERANCE)
    merged["strict_pass"] = [0.0 if not ok else (np.nan if pd.isna(criteria) else float(bool(criteria)))
                             for ok, criteria in zip(merged["checks_pass"], merged["all_criteria_passed"])]
    merged["fc_score"] = [fc_score(s, c, p) for s, c, p in zip(merged["status"], merged["correctness"], merged["process_mean"])]
    merged["fc_pass"] = merged["fc_score"] >= PASS_SCORE
    if task_info:
        for tag in ("difficulty", "category"):
            merged[tag] = merged["task"].map(lambda t, tag=tag: (task_info.get(t) or {}).get(tag))
    return merged


def _rate(row: dict, name: str, flags: pd.Series) -> None:
    row[name] = float(flags.mean()) if len(flags) else np.nan
    row[f"{name}_lo"], row[f"{name}_hi"] = wilson_interval(int(flags.sum()), len(flags))


def _mean(row: dict, name: str, values: pd.Series, seed: int, resamples: int) -> None:
    row[name] = float(values.mean()) if len(values) and values.notna().all() else np.nan
    row[f"{name}_lo"], row[f"{name}_hi"] = bootstrap_interval(values, seed, resamples)


def _summary(group: pd.DataFrame, attempts: int, ks: Sequence[int], seed: int, resamples: int) -> dict:
    first = group[group["attempt"] == 1]
    row = {"tasks": group["task"].nunique(), "trials": len(group), "completed": int(group["completed"].sum())}
    if len(first) and first["strict_pass"].notna().all():
        _rate(row, "strict_pass_at_1", first["strict_pass"].astype(bool))
    else:
        row.update({"strict_pass_at_1": np.nan, "strict_pass_at_1_lo": np.nan, "strict_pass_at_1_hi": np.nan})
    row["judged_share"] = float(group["process"].notna().mean()) if len(group) else np.nan
    _rate(row, "pass_rate", group["checks_pass"])
    per_task = group.groupby("task")["checks_pass"].agg(["size", "sum"])
    for k in ks:
        if k <= attempts:
            estimates = [pass_at_k(int(n), int(c), k) for n, c in zip(per_task["size"], per_task["sum"])]
            _mean(row, f"pass_at_{k}", pd.Series(estimates, dtype=float), seed, resamples)
    _mean(row, "mean_correctness", group["correctness"], seed, resamples)
    # beside it, the fraction of *all* checks passed (format checks too; missing trials 0): how much of a
    # fraction-of-checks score would be format-only credit that correctness does not give
    fraction = group["checks_fraction"].where(group["checks_fraction"].notna(), group["correctness"])
    row["mean_checks_fraction"] = float(fraction.mean()) if len(fraction) else np.nan
    _mean(row, "mean_process", group["process"], seed, resamples)
    _rate(row, "fc_pass_rate", group["fc_pass"])
    _mean(row, "fc_avg_score", group["fc_score"], seed, resamples)
    for column in ("tokens_in", "tokens_out", "cost_usd"):
        total = group[column].sum(min_count=1)
        row[column] = total  # the total, as Harbor reports it
        row[f"{column}_per_task"] = total / row["tasks"] if row["tasks"] and pd.notna(total) else np.nan
        row[f"{column}_per_trial"] = group[column].mean()
    wall = group["wall_s"].dropna()
    row.update({"wall_s_mean": wall.mean() if len(wall) else np.nan, "wall_s_median": wall.median() if len(wall) else np.nan,
                "wall_s_p90": wall.quantile(0.9) if len(wall) else np.nan, "wall_s_max": wall.max() if len(wall) else np.nan})
    for status in (*STATUSES, "missing"):
        row[f"n_{status}"] = int((group["status"] == status).sum())
    row["bootstrap_seed"], row["bootstrap_resamples"] = seed, resamples
    return row


def leaderboard(grid: pd.DataFrame, attempts: int, ks: Sequence[int] = (1,), by: Sequence[str] = (), seed: int = 0,
                resamples: int = 2000) -> pd.DataFrame:
    """One row per agent and model (and per ``by`` columns), best Pass Rate, then Avg. Score, first."""
    keys = ["agent", "model", *by]
    rows = [{**dict(zip(keys, key if isinstance(key, tuple) else (key,))), **_summary(group, attempts, ks, seed, resamples)}
            for key, group in grid.groupby(keys, sort=True, dropna=False)]
    table = pd.DataFrame(rows)
    if table.empty:
        return pd.DataFrame(columns=[*keys, "tasks", "trials", "pass_rate", "fc_avg_score"])
    return table.sort_values([*by, "pass_rate", "fc_avg_score"], ascending=[True] * len(by) + [False, False],
                             kind="stable").reset_index(drop=True)


def _labels(board: pd.DataFrame) -> list[str]:
    return [f"{a}\n{m}" for a, m in zip(board["agent"], board["model"])]


def _empty_figure(path: str, text: str) -> None:
    import matplotlib.pyplot as plt

    fig, axis = plt.subplots(figsize=(6, 2))
    axis.text(0.5, 0.5, text, ha="center", va="center")
    axis.axis("off")
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_leaderboard(board: pd.DataFrame, grid: pd.DataFrame, path: str) -> None:
    """Figure: Pass Rate and Strict-Pass@1 (Wilson 95 %) and Avg. Score (bootstrap 95 %) per agent/model.

    Also the score per task.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if board.empty or grid.empty:
        _empty_figure(path, "no task passed the oracle gate")
        return
    pivot = grid.pivot_table(index="task", columns=["agent", "model"], values="fc_score", aggfunc="mean")
    fig, axes = plt.subplots(1, 2, figsize=(12, max(4, 0.35 * len(pivot) + 1.5)), gridspec_kw={"width_ratios": [1, 1.4]})
    x = np.arange(len(board))
    for offset, column, label in ((-0.27, "pass_rate", "Pass Rate (%)"), (0.0, "strict_pass_at_1", "Strict-Pass@1 (%)"),
                                  (0.27, "fc_avg_score", "FC Avg. Score")):
        scale = 1.0 if column == "fc_avg_score" else 100.0
        value = scale * board[column].astype(float)
        error = np.vstack([value - scale * board[f"{column}_lo"].astype(float),
                           scale * board[f"{column}_hi"].astype(float) - value])
        axes[0].bar(x + offset, value.fillna(0), 0.27, yerr=np.nan_to_num(error), capsize=3, label=label)
    axes[0].set_xticks(x, _labels(board), rotation=35, ha="right", fontsize=8)
    axes[0].set_ylim(0, 105)
    axes[0].set_ylabel("% / score (95 % intervals)")
    axes[0].legend(fontsize=8)
    axes[0].set_title("Agents over gated tasks")
    image = axes[1].imshow(pivot.to_numpy(dtype=float), vmin=0, vmax=100, cmap="viridis", aspect="auto")
    axes[1].set_yticks(range(len(pivot)), pivot.index)
    axes[1].set_xticks(range(pivot.shape[1]), [f"{a}\n{m}" for a, m in pivot.columns], rotation=35, ha="right", fontsize=8)
    axes[1].set_title("FrontierChallenge score per task (mean over attempts)")
    fig.colorbar(image, ax=axes[1], label="score")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def outcome_counts(grid: pd.DataFrame) -> pd.DataFrame:
    """Trials per outcome (columns :data:`OUTCOMES`) for each agent and model.

    >>> grid = pd.DataFrame({"agent": ["x", "x", "y"], "model": ["m", "m", "m"],
    ...                      "status": ["passed", "agent_timeout", "failed"]})
    >>> outcome_counts(grid).loc[("x", "m"), ["passed", "agent_timeout", "failed"]].tolist()
    [1, 1, 0]
    """
    counts = pd.crosstab([grid["agent"], grid["model"]], grid["status"])
    return counts.reindex(columns=list(OUTCOMES), fill_value=0)


def plot_outcomes(grid: pd.DataFrame, path: str) -> None:
    """Stacked bars: trial outcomes per agent and model.

    The outcomes: passed, failed, timeout, agent/environment/verifier error, missing.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if grid.empty:
        _empty_figure(path, "no trials")
        return
    counts = outcome_counts(grid)
    fig, axis = plt.subplots(figsize=(max(5, 1.2 * len(counts) + 2), 4))
    bottom = np.zeros(len(counts))
    labels = [f"{a}\n{m}" for a, m in counts.index]
    for outcome in OUTCOMES:
        values = counts[outcome].to_numpy(dtype=float)
        if values.any():
            axis.bar(labels, values, bottom=bottom, color=OUTCOME_COLORS[outcome], label=outcome.replace("_", " "))
            bottom += values
    axis.set_ylabel("trials")
    axis.tick_params(axis="x", labelrotation=35, labelsize=8)
    for label in axis.get_xticklabels():
        label.set_horizontalalignment("right")
    axis.set_title("Trial outcomes per agent and model")
    axis.legend(fontsize=8, bbox_to_anchor=(1.01, 1), loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_cost_vs_success(board: pd.DataFrame, path: str) -> None:
    """Pass Rate (Wilson 95 %) against cost per task, one point per agent/model (cost 0 when not reported)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if board.empty:
        _empty_figure(path, "no agents")
        return
    fig, axis = plt.subplots(figsize=(6, 4))
    cost = board["cost_usd_per_task"].astype(float).fillna(0.0)
    rate = 100 * board["pass_rate"].astype(float)
    error = np.vstack([rate - 100 * board["pass_rate_lo"].astype(float), 100 * board["pass_rate_hi"].astype(float) - rate])
    axis.errorbar(cost, rate, yerr=np.nan_to_num(error), fmt="o", capsize=3)
    for label, x_value, y_value in zip(_labels(board), cost, rate):
        axis.annotate(label.replace("\n", " / "), (x_value, y_value), fontsize=7, xytext=(4, 4), textcoords="offset points")
    axis.set_xlabel("cost per task (USD; 0 = not reported)")
    axis.set_ylabel("Pass Rate (%)")
    axis.set_ylim(-5, 105)
    axis.set_title("Cost versus success")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
