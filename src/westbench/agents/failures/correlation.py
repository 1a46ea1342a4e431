"""Process against task score: Spearman's rank correlation with a seeded bootstrap interval, overall and per task.

Over the judged trials (their ``process`` and deterministic ``task_score``: correctness, 0 for a trial the agent
did not finish), Spearman's rho (scipy) with a percentile-bootstrap 95 % interval: trials resampled with
replacement ``resamples`` times from a generator seeded with ``seed``; a resample in which either variable is
constant has no rho and is left out (the interval is undefined when more than half are). Rows:

* ``overall``: every judged trial of the agents under test; ``agent``: each agent and model's;
* ``task``: each task's, pooled over agents and attempts, where it has at least ``min_trials`` judged trials.

A scope with fewer than ``min_trials`` trials, or with a constant process or score, gets no rho and says why
(``note``); so does the whole table when there are few trials. Spearman asks whether a better process goes with
a better score in rank, whatever the scale; pooled over tasks it also picks up that hard tasks pull both down.

Examples
--------
>>> x = [0.1, 0.2, 0.4, 0.5, 0.7, 0.9]
>>> rho, low, high, note = spearman_interval(x, [0, 0, 0.5, 0.5, 1, 1], seed=3, resamples=500, min_trials=5)
>>> round(rho, 3), bool(low <= rho <= high), note
(0.956, True, '')
>>> spearman_interval(x[:3], [0, 1, 1], seed=3, resamples=500, min_trials=5)[3]
'too few trials (3 < 5)'
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from westbench.agents.statistics import CONFIDENCE


def _rho(x: np.ndarray, y: np.ndarray) -> float:
    if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return np.nan
    from scipy.stats import spearmanr

    return float(spearmanr(x, y).statistic)


def _rows_rho(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho of each row pair (resamples x trials): Pearson's r of the rows' average ranks (scipy's
    ``rankdata``, as ``spearmanr`` ranks); NaN for a row in which either is constant."""
    from scipy.stats import rankdata

    rx, ry = rankdata(x, axis=1), rankdata(y, axis=1)
    rx, ry = rx - rx.mean(axis=1, keepdims=True), ry - ry.mean(axis=1, keepdims=True)
    denominator = np.sqrt((rx**2).sum(axis=1) * (ry**2).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, (rx * ry).sum(axis=1) / denominator, np.nan)


def spearman_interval(x, y, seed: int, resamples: int, min_trials: int) -> tuple[float, float, float, str]:
    """Spearman's rho of ``x`` and ``y``, its bootstrap interval (module docstring) and a note when undefined."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    if len(x) < min_trials:
        return (np.nan, np.nan, np.nan, f"too few trials ({len(x)} < {min_trials})")
    rho = _rho(x, y)
    if not np.isfinite(rho):
        which = "process" if np.all(x == x[0]) else "task score"
        return (np.nan, np.nan, np.nan, f"the {which} does not vary over these trials")
    index = np.random.default_rng(seed).integers(0, len(x), (resamples, len(x)))
    values = _rows_rho(x[index], y[index])
    values = values[np.isfinite(values)]
    if values.size < resamples / 2:
        return (rho, np.nan, np.nan, "most resamples have a constant process or score: no interval")
    alpha = (1 - CONFIDENCE) / 2
    return (rho, float(np.quantile(values, alpha)), float(np.quantile(values, 1 - alpha)), "")


def process_correlation(process: pd.DataFrame, seed: int, resamples: int, min_trials: int) -> pd.DataFrame:
    """One row per scope (module docstring) of judged trials' ``process`` against their ``task_score``.

    Columns: ``scope`` (overall, agent, task), ``group``, ``trials``, ``spearman``, ``lo``, ``hi``, ``note``,
    ``seed``, ``resamples``.
    """
    judged = process[pd.to_numeric(process.get("process"), errors="coerce").notna()] if len(process) else process
    scopes = [("overall", "all agents under test", judged)]
    if len(judged):
        for (agent, model), group in judged.groupby(["agent", "model"], sort=True):
            scopes.append(("agent", agent if model in ("none", None) else f"{agent} / {model}", group))
        for task, group in judged.groupby("task", sort=True):
            scopes.append(("task", task, group))
    rows = []
    for scope, name, group in scopes:
        rho, low, high, note = spearman_interval(
            group["process"] if len(group) else [],
            group["task_score"] if len(group) else [],
            seed,
            resamples,
            min_trials,
        )
        rows.append(
            {"scope": scope, "group": name, "trials": len(group), "spearman": rho, "lo": low, "hi": high, "note": note}
        )
    table = pd.DataFrame(rows)
    table["seed"], table["resamples"], table["min_trials"] = seed, resamples, min_trials
    return table
