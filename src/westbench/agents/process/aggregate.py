"""How item verdicts become a trial's scorecard, and trials an agent's process profile.

* **Item** (:func:`item_score`): its repeats' raw values (0, 1, 2; None for a judge error) decided by the
  judge's ``aggregate``: ``majority``, the highest anchor more than half the repeats reached (with three
  repeats, the median; a judge error reaches none), or ``mean``, the mean of the mapped values (a judge error
  counts 0). Anchors map to 0, 0.5 and 1.
* **Capability** (:func:`trial_scores`): the mean of its items' scores, only where the task gives it an
  opportunity; a capability without one is excluded (None), never scored 0.
* **Trial**: ``coverage`` = the share of the six capabilities with an opportunity, and ``process`` = the mean of
  the covered capabilities' scores, reported beside its coverage.
* **Agent** (:func:`agent_profile`): per capability, the mean over the trials that cover it; ``process``, the mean
  of the trials' process (each trial counts once); and the coverage-adjusted process, the mean over every
  (trial, covered capability) cell, i.e. the trials' process weighted by their coverage: a trial whose task gives
  six capabilities an opportunity weighs six times one that gives one, so a few narrowly covered trials cannot
  carry the score. Each with a seeded percentile-bootstrap 95 % interval over trials.

Examples
--------
>>> item_score([2, 1, 2], "majority"), item_score([2, 1, None], "majority"), item_score([2, 1, None], "mean")
(1.0, 0.5, 0.5)
>>> scores = trial_scores({"a": 1.0, "b": 0.0, "c": 0.5}, {"a": "coherence", "b": "coherence", "c": "repair"},
...                       ("coherence", "repair"))
>>> scores["capabilities"]["coherence"], scores["capabilities"]["alternatives"], scores["process"], scores["coverage"]
(0.5, None, 0.5, 0.333333)
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from westbench.agents.judge.rubric import SCALES, unit_value
from westbench.agents.process.capabilities import CAPABILITIES
from westbench.agents.statistics import CONFIDENCE

KIND = "anchored"
#: Measures of an agent's profile besides the capabilities.
OVERALL = ("process", "process_coverage_adjusted")


def item_score(raw_values: Sequence[float | None], rule: str) -> float | None:
    """One item's score in [0, 1] over its repeats (module docstring); None when it has no repeat."""
    if not raw_values:
        return None
    if rule == "mean":
        return float(np.mean([unit_value(value, KIND) for value in raw_values]))
    lowest, highest = SCALES[KIND]
    reached = [
        anchor
        for anchor in range(int(lowest), int(highest) + 1)
        if 2 * sum(value is not None and value >= anchor for value in raw_values) > len(raw_values)
    ]
    return unit_value(max(reached) if reached else lowest, KIND)


def trial_scores(items: Mapping[str, float | None], capability_of: Mapping[str, str], covered: Sequence[str]) -> dict:
    """A trial's capability scores, coverage and process from its item scores (module docstring).

    ``items``: item id to score (None: not judged); ``capability_of``: item id to capability; ``covered``: the
    capabilities with an opportunity. A covered capability with an item not judged is None, and so is the
    process then.
    """
    capabilities: dict[str, float | None] = {}
    for key in CAPABILITIES:
        values = [items[i] for i, capability in capability_of.items() if capability == key and i in items]
        if key not in covered or not values or any(value is None for value in values):
            capabilities[key] = None
        else:
            capabilities[key] = round(float(np.mean(values)), 6)
    scored = [capabilities[key] for key in covered]
    process = round(float(np.mean(scored)), 6) if scored and all(v is not None for v in scored) else None
    return {
        "capabilities": capabilities,
        "covered": [key for key in CAPABILITIES if key in covered],
        "coverage": round(len(covered) / len(CAPABILITIES), 6),
        "process": process,
    }


def _bootstrap(statistic, n: int, seed: int, resamples: int) -> tuple[float, float]:
    """Percentile interval of ``statistic(indices)`` over trials resampled with replacement (NaN for n < 2)."""
    if n < 2:
        return (np.nan, np.nan)
    rng = np.random.default_rng(seed)
    values = np.array([statistic(rng.integers(0, n, n)) for _ in range(resamples)], dtype=float)
    values = values[np.isfinite(values)]
    if values.size < resamples / 2:
        return (np.nan, np.nan)
    alpha = (1 - CONFIDENCE) / 2
    return (float(np.quantile(values, alpha)), float(np.quantile(values, 1 - alpha)))


def agent_profile(trials: pd.DataFrame, seed: int, resamples: int = 2000) -> pd.DataFrame:
    """One row per measure of one agent's judged trials (module docstring).

    ``trials``: one row per judged trial with ``coverage``, ``process`` and a column per capability (None where
    not covered). Columns: ``measure`` (a capability or one of :data:`OVERALL`), ``trials`` (that the measure
    counts), ``cells`` ((trial, capability) cells), ``estimate``, ``lo``, ``hi``.

    >>> frame = pd.DataFrame({"coverage": [1 / 6, 1.0], "process": [1.0, 0.25], "coherence": [1.0, 0.25],
    ...                       **{key: [None, 0.25] for key in CAPABILITIES[1:]}})
    >>> profile = agent_profile(frame, seed=1, resamples=200).set_index("measure")
    >>> float(profile.loc["process", "estimate"]), float(profile.loc["process_coverage_adjusted", "estimate"])
    (0.625, 0.357143)
    """
    rows = []
    for key in CAPABILITIES:
        values = pd.to_numeric(trials[key], errors="coerce").dropna().to_numpy() if key in trials else np.array([])
        low, high = _bootstrap(lambda i, v=values: float(np.mean(v[i])), len(values), seed, resamples)
        estimate = round(float(np.mean(values)), 6) if len(values) else np.nan
        rows.append(
            {"measure": key, "trials": len(values), "cells": len(values), "estimate": estimate, "lo": low, "hi": high}
        )
    process = pd.to_numeric(trials["process"], errors="coerce").to_numpy(dtype=float)
    weights = pd.to_numeric(trials["coverage"], errors="coerce").to_numpy(dtype=float) * len(CAPABILITIES)
    keep = np.isfinite(process) & np.isfinite(weights)
    process, weights = process[keep], weights[keep]
    low, high = _bootstrap(lambda i: float(np.mean(process[i])), len(process), seed, resamples)
    estimate = round(float(np.mean(process)), 6) if len(process) else np.nan
    cells = int(round(weights.sum()))
    rows.append(
        {"measure": "process", "trials": len(process), "cells": cells, "estimate": estimate, "lo": low, "hi": high}
    )

    def weighted(i):
        return float(np.sum(process[i] * weights[i]) / np.sum(weights[i]))

    low, high = _bootstrap(weighted, len(process), seed, resamples)
    estimate = round(weighted(np.arange(len(process))), 6) if len(process) else np.nan
    rows.append(
        {
            "measure": "process_coverage_adjusted",
            "trials": len(process),
            "cells": cells,
            "estimate": estimate,
            "lo": low,
            "hi": high,
        }
    )
    return pd.DataFrame(rows)
