"""The study's table, one row per engine, metric and distribution: the engine's score (its interval, the noise
floor, the suite's verdict) beside its known answer (the prediction, at the engine's size, the expected verdict,
whether they agree and whether the difference interval holds 0).

The rows are written by :func:`westbench.calibration.table.calibration_table` and read by the checks
(:mod:`westbench.calibration.checks`), the figures (:mod:`westbench.calibration.figures`) and the report.

Examples
--------
>>> record = {"metrics": {"we": {"w1": {"tic0": 0.3}, "intervals": {"w1": {"tic0": {"low": 0.25, "high": 0.35}}},
...                              "verdicts": {"w1": {"tic0": "separated"}},
...                              "noise_floor": {"w1": {"tic0": {"value": 0.02, "low": 0.01, "high": 0.04}}}}}}
>>> (row,) = engine_rows("s", "temperature_120", "perturbation", {}, record, "we", {("w1", "tic0"): 0.32})
>>> row["expected"], row["agrees"], row["covers"], row["headline"]
('separated', True, True, True)
>>> list(headline_rows(pd.DataFrame([row], columns=COLUMNS))["engine"])
['temperature_120']
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

from westbench.calibration.verdicts import agrees, expected_verdict
from westbench.metrics.noise_floor import UNDETERMINED

__all__ = ["CHANGE_DEFAULTS", "COLUMNS", "DISTRIBUTIONS", "engine_rows", "headline_rows"]

#: The headline distributions (their W1): the study's figures and the short tables of the report and README.
#: Every other distribution and metric the suite reports is in the table too, and checked.
DISTRIBUTIONS = ("tic0", "tic1", "rg")
#: An engine's changes from the reference, and their "no change" (``steps_per_segment``: the study's own).
CHANGE_DEFAULTS = {
    "temperature_scale": 1.0,
    "contact_scale": 1.0,
    "friction_scale": 1.0,
    "timestep_scale": 1.0,
    "steps_per_segment": None,
}
#: The table's columns, in the order calibration.csv writes them.
COLUMNS = [
    "study",
    "engine",
    "kind",
    "temperature_scale",
    "contact_scale",
    "friction_scale",
    "timestep_scale",
    "steps_per_segment",
    "distribution",
    "metric",
    "value",
    "ci_low",
    "ci_high",
    "floor",
    "floor_low",
    "floor_high",
    "verdict",
    "predicted",
    "predicted_at_size",
    "expected",
    "agrees",
    "difference_low",
    "difference_high",
    "covers",
    "headline",
    "note",
]


def engine_rows(
    study: str,
    engine: str,
    kind: str,
    change: Mapping,
    record: Mapping,
    weighting: str,
    predicted: Mapping | None,
    differences: Mapping | None = None,
    at_size: Mapping | None = None,
) -> list[dict]:
    """One table row per metric and distribution the engine's metrics.json reports (every W1 and KL).

    ``predicted``: {(metric, distribution): value} of
    :func:`~westbench.calibration.predictions.predicted_divergences` (None for trained engines), the known answer;
    ``at_size``: the same answer as a sample of the engine's size shows it
    (:func:`westbench.calibration.known_answer.answer_at_size`, or the floor's median for the reference's
    equilibrium: :func:`~westbench.calibration.predictions.floor_medians`), ``predicted_at_size`` (the prediction
    itself where not given);
    ``differences``: {(metric, distribution): (low, high)}, the 95 % interval of the engine's value minus the
    prediction, both sides' noise in it (:func:`westbench.calibration.known_answer.difference_intervals`), written
    as the interval of the value minus ``predicted_at_size`` (``difference_low``, ``difference_high``: the same
    interval moved by the excess the engine's smaller sample carries); ``covers``: whether that interval holds 0,
    or without it whether the engine's interval holds ``predicted_at_size`` (None without either).
    """
    values = record.get("metrics", {}).get(weighting) or {}
    floor = values.get("noise_floor") or record.get("noise_floor") or {}
    notes = values.get("verdict_notes") or {}
    rows = []
    for metric in ("w1", "kl"):
        for name in values.get(metric) or {}:
            interval = (values.get("intervals") or {}).get(metric, {}).get(name) or {}
            bound = (floor.get(metric) or {}).get(name) or {}
            verdict = (values.get("verdicts") or {}).get(metric, {}).get(name, UNDETERMINED)
            floor_high = bound.get("high")
            guess = np.nan if predicted is None else predicted.get((metric, name), np.nan)
            low, high = interval.get("low"), interval.get("high")
            width = None if low is None or high is None else float(high) - float(low)
            expected = (
                ""
                if predicted is None
                else expected_verdict(guess, np.nan if floor_high is None else floor_high, width)
            )
            sized = (at_size or {}).get((metric, name), guess)
            sized = guess if sized is None or not np.isfinite(sized) else float(sized)
            difference = (differences or {}).get((metric, name), (None, None))
            if difference[0] is not None and np.isfinite(difference).all() and np.isfinite(guess):
                difference = (difference[0] - (sized - guess), difference[1] - (sized - guess))
            else:
                difference = (None, None)
            if predicted is None or not np.isfinite(guess):
                covers = None
            elif difference[0] is not None:
                covers = bool(difference[0] <= 0.0 <= difference[1])
            else:
                covers = None if low is None or high is None else bool(low <= sized <= high)
            rows.append(
                {
                    "study": study,
                    "engine": engine,
                    "kind": kind,
                    **change,
                    "distribution": name,
                    "metric": metric,
                    "value": (values.get(metric) or {}).get(name),
                    "ci_low": low,
                    "ci_high": high,
                    "floor": bound.get("value"),
                    "floor_low": bound.get("low"),
                    "floor_high": floor_high,
                    "verdict": verdict,
                    "predicted": guess,
                    "predicted_at_size": None if predicted is None else sized,
                    "expected": expected,
                    "agrees": agrees(verdict, expected) if expected else None,
                    "difference_low": difference[0],
                    "difference_high": difference[1],
                    "covers": covers,
                    "headline": metric == "w1" and name in DISTRIBUTIONS,
                    "note": (notes.get(metric) or {}).get(name, ""),
                }
            )
    return rows


def headline_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The W1 rows of the headline distributions (:data:`DISTRIBUTIONS`), as the figures and short tables show."""
    return table[(table["metric"] == "w1") & table["distribution"].isin(DISTRIBUTIONS)]
