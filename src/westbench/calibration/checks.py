"""The study's pass/fail checks (what the README states the study proves), read from its table into
``calibration.json``, one block per check as docs/calibration.md lists them.

- the null and the engines that change only their dynamics: within noise wherever decided (``null_verdicts``,
  ``null_within_noise``; ``dynamics_*``);
- each perturbation family (temperature, contacts): its strongest step separated where its prediction says so
  (``strongest_<change>_separated``), its divergence growing with the step (:mod:`westbench.calibration.ordering`);
- every cell against its expected verdict (``agreement``, :mod:`westbench.calibration.verdicts`) and every score
  against its known answer within their noise (``interval_coverage``, :mod:`westbench.calibration.coverage`);
- the trained engines (:mod:`westbench.calibration.training_checks`).

Examples
--------
>>> from westbench.calibration.table_rows import COLUMNS
>>> def row(engine, kind, scale, value, verdict):
...     return {"engine": engine, "kind": kind, "temperature_scale": scale, "contact_scale": 1.0, "metric": "w1",
...             "distribution": "tic0", "value": value, "verdict": verdict, "expected": verdict, "agrees": True}
>>> table = pd.DataFrame([row("reference", "null", 1.0, 0.05, "within noise"),
...                       row("temperature_110", "perturbation", 1.1, 0.3, "separated"),
...                       row("temperature_120", "perturbation", 1.2, 0.6, "separated")], columns=COLUMNS)
>>> result = checks(table, training={})
>>> result["null_within_noise"], result["strongest_temperature_separated"], result["temperature_monotone"]
(True, True, {'w1 tic0': True})
>>> result["agreement"]
{'rows': 3, 'agree': 3, 'could_disagree': 3, 'agree_of_those': 3}
"""

from __future__ import annotations

from typing import Mapping

import pandas as pd

from westbench.calibration.coverage import interval_coverage
from westbench.calibration.ordering import monotone, ordered
from westbench.calibration.training_checks import training_checks
from westbench.metrics.noise_floor import SEPARATED, WITHIN_NOISE

__all__ = ["checks"]


def checks(table: pd.DataFrame, training: Mapping[str, Mapping]) -> dict:
    """The study's pass/fail checks (what the README states the study proves) from its table and the trained
    engines' training summaries (``training``: {engine: summary}; empty without trained engines)."""
    result = {**_within_noise(table), **_perturbation_families(table)}
    result["agreement"] = _agreement(table)
    result["interval_coverage"] = interval_coverage(table)
    result.update(training_checks(table, training))
    return result


def _within_noise(table: pd.DataFrame) -> dict:
    """The null's and the dynamics-only engines' verdicts (``<kind>_verdicts``) and whether they are within noise
    wherever decided (``<kind>_within_noise``)."""
    result: dict = {}
    for kind, key in (("null", "null"), ("dynamics", "dynamics")):
        rows = table[table["kind"] == kind]
        if rows.empty:
            continue
        determined = rows[rows["verdict"].isin([SEPARATED, WITHIN_NOISE])]
        result[f"{key}_verdicts"] = {
            "cells": int(len(rows)),
            "determined": int(len(determined)),
            "within_noise": int((determined["verdict"] == WITHIN_NOISE).sum()),
            "separated": sorted(
                f"{r['engine']}: {r['metric']} {r['distribution']}"
                for _, r in determined[determined["verdict"] == SEPARATED].iterrows()
            ),
        }
        # Within noise on every distribution and metric it can be decided on (undetermined cells are counted apart).
        result[f"{key}_within_noise"] = bool(len(determined) and (determined["verdict"] == WITHIN_NOISE).all())
    return result


def _perturbation_families(table: pd.DataFrame) -> dict:
    """Per family (temperature, contact): the strongest step's verdicts, whether it is separated where it must be,
    and whether the family's divergence grows with its step (:func:`~westbench.calibration.ordering.monotone`,
    :func:`~westbench.calibration.ordering.ordered`)."""
    result: dict = {}
    for change in ("temperature", "contact"):
        column = f"{change}_scale"
        other = "contact_scale" if change == "temperature" else "temperature_scale"
        rows = table[(table["kind"] == "perturbation") & (table[other] == 1.0) & (table[column] != 1.0)]
        if rows.empty:
            continue
        strongest = rows.loc[(rows[column] - 1.0).abs() == (rows[column] - 1.0).abs().max()]
        result[f"strongest_{change}"] = {
            f"{row['metric']} {row['distribution']}": row["verdict"] for _, row in strongest.iterrows()
        }
        # Separated wherever the exact prediction says a perturbation of that size must be; where it says so on no
        # distribution (every prediction in the "either" band: that depends on the ground truth's realization and
        # the CPU's trajectories), separated on one at least.
        separated, must = strongest["verdict"] == SEPARATED, strongest["expected"] == SEPARATED
        result[f"strongest_{change}_separated"] = bool(separated[must].all() if must.any() else separated.any())
        result[f"{change}_monotone"] = monotone(table, change)
        result[f"{change}_ordered"] = ordered(table, change)
    return result


def _agreement(table: pd.DataFrame) -> dict:
    """How many cells with an expected verdict agree with it, and of those that could disagree (an *either* cell
    cannot)."""
    judged = table[table["expected"].astype(str).ne("")]
    could = judged[judged["expected"].isin([SEPARATED, WITHIN_NOISE])]  # an "either" cell cannot disagree
    return {
        "rows": int(len(judged)),
        "agree": int(judged["agrees"].fillna(False).astype(bool).sum()),
        "could_disagree": int(len(could)),
        "agree_of_those": int(could["agrees"].fillna(False).astype(bool).sum()),
    }
