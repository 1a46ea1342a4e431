"""The leaderboard's statistics: MDArena and FrontierChallenge counts of agents and models, with error bars.

Every function takes and returns DataFrames (one row per trial, or per agent/model and ``by`` group),
so breakdowns by any task tag compose with them. The trial records are read by :mod:`westbench.agents.trials`,
the figures drawn by :mod:`westbench.agents.figures`, and :mod:`westbench.agents.leaderboard` is the step that
writes them all.

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

from math import comb
from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from westbench.agents.grading import PASS_TOLERANCE, STATUSES

PASS_SCORE = 99.9
COMPLETED = ("passed", "failed")
OUTCOMES = ("passed", "failed", "agent_timeout", "agent_error", "environment_error", "verifier_error", "missing")
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

    result = bootstrap(
        (values,),
        np.mean,
        n_resamples=resamples,
        confidence_level=confidence,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    return (float(result.confidence_interval.low), float(result.confidence_interval.high))


def fc_score(status: str, correctness: float, process_mean: float | None) -> float:
    """FrontierChallenge score 0-100 of one trial (module docstring)."""
    if status not in COMPLETED:
        return 0.0
    correctness = 0.0 if correctness is None or pd.isna(correctness) else float(correctness)
    if process_mean is None or pd.isna(process_mean):
        return 100.0 * correctness
    return 100.0 * (correctness + float(process_mean)) / 2.0


def complete_grid(
    trials: pd.DataFrame,
    tasks: Sequence[str],
    runs: Iterable[tuple[str, str]],
    attempts: int,
    task_info: Mapping[str, Mapping] | None = None,
) -> pd.DataFrame:
    """Every (task, agent, model, attempt) of the design with the per-trial counts (module docstring)."""
    keys = pd.DataFrame(
        [
            {"task": t, "agent": a, "model": m, "attempt": k}
            for t in tasks
            for a, m in runs
            for k in range(1, attempts + 1)
        ],
        columns=["task", "agent", "model", "attempt"],
    )
    merged = keys.merge(trials, on=["task", "agent", "model", "attempt"], how="left")
    merged["status"] = merged["status"].fillna("missing")
    merged["correctness"] = pd.to_numeric(merged["correctness"], errors="coerce").fillna(0.0).astype(float)
    for column in (
        "process",
        "process_mean",
        "all_criteria_passed",
        "tokens_in",
        "tokens_out",
        "cost_usd",
        "wall_s",
        "checks_fraction",
    ):
        merged[column] = pd.to_numeric(merged[column], errors="coerce") if column in merged else np.nan
    if "process_mean" not in trials:  # records without it: the fraction met stands in
        merged["process_mean"] = merged["process"]
    merged["judgement"] = np.where(merged["process"].notna(), "judged", "not judged")
    merged["completed"] = merged["status"].isin(COMPLETED)
    merged["checks_pass"] = merged["completed"] & (merged["correctness"] >= 1.0 - PASS_TOLERANCE)
    merged["strict_pass"] = [
        0.0 if not ok else (np.nan if pd.isna(criteria) else float(bool(criteria)))
        for ok, criteria in zip(merged["checks_pass"], merged["all_criteria_passed"])
    ]
    merged["fc_score"] = [
        fc_score(s, c, p) for s, c, p in zip(merged["status"], merged["correctness"], merged["process_mean"])
    ]
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
    row.update(
        {
            "wall_s_mean": wall.mean() if len(wall) else np.nan,
            "wall_s_median": wall.median() if len(wall) else np.nan,
            "wall_s_p90": wall.quantile(0.9) if len(wall) else np.nan,
            "wall_s_max": wall.max() if len(wall) else np.nan,
        }
    )
    for status in (*STATUSES, "missing"):
        row[f"n_{status}"] = int((group["status"] == status).sum())
    row["bootstrap_seed"], row["bootstrap_resamples"] = seed, resamples
    return row


def leaderboard(
    grid: pd.DataFrame,
    attempts: int,
    ks: Sequence[int] = (1,),
    by: Sequence[str] = (),
    seed: int = 0,
    resamples: int = 2000,
) -> pd.DataFrame:
    """One row per agent and model (and per ``by`` columns), best Pass Rate, then Avg. Score, first."""
    keys = ["agent", "model", *by]
    rows = [
        {**dict(zip(keys, key if isinstance(key, tuple) else (key,))), **_summary(group, attempts, ks, seed, resamples)}
        for key, group in grid.groupby(keys, sort=True, dropna=False)
    ]
    table = pd.DataFrame(rows)
    if table.empty:
        return pd.DataFrame(columns=[*keys, "tasks", "trials", "pass_rate", "fc_avg_score"])
    return table.sort_values(
        [*by, "pass_rate", "fc_avg_score"], ascending=[True] * len(by) + [False, False], kind="stable"
    ).reset_index(drop=True)


def outcome_counts(grid: pd.DataFrame) -> pd.DataFrame:
    """Trials per outcome (columns :data:`OUTCOMES`) for each agent and model.

    >>> statuses = ["passed", "agent_timeout", "failed"]
    >>> grid = pd.DataFrame({"agent": ["x", "x", "y"], "model": ["m", "m", "m"], "status": statuses})
    >>> outcome_counts(grid).loc[("x", "m"), ["passed", "agent_timeout", "failed"]].tolist()
    [1, 1, 0]
    """
    counts = pd.crosstab([grid["agent"], grid["model"]], grid["status"])
    return counts.reindex(columns=list(OUTCOMES), fill_value=0)
