"""What the controls of a run found: each control's cells, whether the run detected it, the failure modes it
would catch and its resolution per metric and distribution (:class:`RunResolution`, ``controls.json`` and
``controls.csv``; :mod:`westbench.metrics.controls` makes it).

Examples
--------
>>> cells = {"w1": {"tic0": {"value": 0.4, "verdict": "separated"}, "rg": {"value": 0.1, "verdict": "within noise"}}}
>>> detected(cells, ("tic0",), "failure"), detected(cells, ("rg",), "failure"), detected(cells, ("rg",), "null")
(True, False, True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np
import pandas as pd

from westbench.metrics.noise_floor import SEPARATED, UNDETERMINED, WITHIN_NOISE

#: The JSON keys of a control's cell.
CELL_KEYS = ("value", "low", "high", "floor_high", "verdict", "note")
#: The columns of ``controls.csv``.
TABLE_COLUMNS = [
    "protein",
    "control",
    "kind",
    "failure_mode",
    "expected",
    "detected",
    "moves",
    "metric",
    "distribution",
    "value",
    "low",
    "high",
    "floor_high",
    "verdict",
    "note",
]
#: ``detects`` values by a control's ``detected``.
DETECTS = {True: "yes", False: "no", None: "cannot tell"}


def cells_of(values: Mapping, keys) -> dict:
    """{metric: {distribution: {value, low, high, floor_high, verdict, note}}} of one score."""
    out: dict = {}
    for metric, name in keys:
        interval = values.get("intervals", {}).get(metric, {}).get(name, {})
        floor = values.get("noise_floor", {}).get(metric, {}).get(name, {})
        out.setdefault(metric, {})[name] = {
            "value": _finite(values.get(metric, {}).get(name)),
            "low": _finite(interval.get("low")),
            "high": _finite(interval.get("high")),
            "floor_high": _finite(floor.get("high")),
            "verdict": values.get("verdicts", {}).get(metric, {}).get(name, UNDETERMINED),
            "note": values.get("verdict_notes", {}).get(metric, {}).get(name, ""),
        }
    return out


def _finite(value) -> float | None:
    return float(value) if value is not None and np.isfinite(value) else None


def detected(cells: Mapping, moves, kind: str) -> bool | None:
    """Whether the run shows a control's effect: a failure separated on a cell it moves (True), none of those
    separated but one decided (False), or none decided (None); a null, whether any cell was separated (True: a
    false alarm).

    Examples
    --------
    >>> cells = {"w1": {"tic0": {"verdict": "separated"}, "rg": {"verdict": "within noise"}}}
    >>> detected(cells, ("tic0",), "failure"), detected(cells, ("rg",), "failure"), detected(cells, (), "null")
    (True, False, True)
    """
    verdicts = [
        cell["verdict"] for metric in cells.values() for name, cell in metric.items() if kind == "null" or name in moves
    ]
    if SEPARATED in verdicts:
        return True
    return False if WITHIN_NOISE in verdicts else None


def resolution(controls: list[dict]) -> dict:
    """Per metric and distribution: the smallest value of a known-bad control that moves it and was separated
    there, the largest such value within noise, the controls of each, and ``resolved`` (one was separated).

    Examples
    --------
    >>> controls = [{"kind": "failure", "name": "a", "moves": ["tic0"], "cells": {"w1": {"tic0": {"value": 0.4,
    ...     "verdict": "separated"}}}}, {"kind": "failure", "name": "b", "moves": ["tic0"], "cells": {"w1": {"tic0":
    ...     {"value": 0.1, "verdict": "within noise"}}}}]
    >>> resolution(controls)["w1"]["tic0"]["smallest_separated"], resolution(controls)["w1"]["tic0"]["resolved"]
    (0.4, True)
    """
    out: dict = {}
    for control in controls:
        for metric, cells in control["cells"].items():
            for name, cell in cells.items():
                entry = out.setdefault(metric, {}).setdefault(
                    name,
                    {
                        "smallest_separated": None,
                        "largest_within_noise": None,
                        "resolved": False,
                        "separated_by": [],
                        "within_noise": [],
                    },
                )
                if control["kind"] != "failure" or name not in control["moves"] or cell["value"] is None:
                    continue
                if cell["verdict"] == SEPARATED:
                    entry["separated_by"].append(control["name"])
                    entry["resolved"] = True
                    if entry["smallest_separated"] is None or cell["value"] < entry["smallest_separated"]:
                        entry["smallest_separated"] = cell["value"]
                elif cell["verdict"] == WITHIN_NOISE:
                    entry["within_noise"].append(control["name"])
                    if entry["largest_within_noise"] is None or cell["value"] > entry["largest_within_noise"]:
                        entry["largest_within_noise"] = cell["value"]
    return out


def sanity_answer(control: Mapping) -> str:
    """Whether the engine sanity checks catch a failure control: ``yes`` where they failed it in every split of
    its ``sanity_splits`` (:mod:`westbench.metrics.control_sanity`; the one split of ``sanity_failed`` where absent),
    ``no`` in none, ``in k of n splits`` between, ``cannot tell`` where it was not made.

    >>> sanity_answer({"made": "x -> -x", "sanity_splits": [2, 3]}), sanity_answer({"made": "", "sanity_failed": []})
    ('in 2 of 3 splits', 'cannot tell')
    """
    if not control.get("made"):
        return "cannot tell"
    caught, splits = control.get("sanity_splits") or (int(bool(control.get("sanity_failed"))), 1)
    return "yes" if caught == splits else "no" if caught == 0 else f"in {caught} of {splits} splits"


@dataclass
class RunResolution:
    """What the controls of one run found (see the module docstring); :meth:`to_dict` is ``controls.json``."""

    reference: str
    controls: list[dict]
    settings: dict
    seconds: float = 0.0
    detects: dict = field(init=False)
    caught_by_sanity: dict = field(init=False)
    negatives: dict = field(init=False)
    resolution: dict = field(init=False)

    def __post_init__(self):
        failures = [c for c in self.controls if c["kind"] == "failure"]
        self.detects = {c["failure_mode"]: DETECTS[c["detected"]] for c in failures}
        # Engine sanity judges each engine alone (whatever the ground truth's size), but what it sees of a control can
        # depend on the runs it was made from: caught only where every split's control failed it.
        self.caught_by_sanity = {c["failure_mode"]: sanity_answer(c) for c in failures}
        self.negatives = {
            c["name"]: {
                "within_noise": None if c["detected"] is None else not c["detected"],
                "separated": [
                    f"{metric}/{name}"
                    for metric, cells in c["cells"].items()
                    for name, cell in cells.items()
                    if cell["verdict"] == SEPARATED
                ],
                "sanity_failed": list(c.get("sanity_failed", [])),
            }
            for c in self.controls
            if c["kind"] == "null"
        }
        self.resolution = resolution(self.controls)

    def to_dict(self, protein: str) -> dict:
        return {
            "protein": protein,
            "reference": self.reference,
            "controls": self.controls,
            "detects": self.detects,
            "caught_by_sanity": self.caught_by_sanity,
            "negatives": self.negatives,
            "resolution": self.resolution,
            "settings": self.settings,
            "seconds": round(self.seconds, 3),
        }

    def table(self, protein: str) -> pd.DataFrame:
        """Tidy rows (:data:`TABLE_COLUMNS`): one per control, metric and distribution."""
        rows = [
            {
                "protein": protein,
                "control": c["name"],
                "kind": c["kind"],
                "failure_mode": c["failure_mode"] or "",
                "expected": c["expected"],
                "detected": DETECTS[c["detected"]],
                "moves": name in c["moves"],
                "metric": metric,
                "distribution": name,
                **{key: cell[key] for key in CELL_KEYS},
            }
            for c in self.controls
            for metric, cells in c["cells"].items()
            for name, cell in cells.items()
        ]
        rows += [
            {
                "protein": protein,
                "control": c["name"],
                "kind": c["kind"],
                "failure_mode": c["failure_mode"] or "",
                "expected": c["expected"],
                "detected": DETECTS[c["detected"]],
                "verdict": UNDETERMINED,
                "note": c["note"],
            }
            for c in self.controls
            if not c["cells"]
        ]
        return pd.DataFrame(rows, columns=TABLE_COLUMNS)

    def lines(self) -> list[str]:
        """What the controls say, one sentence each (the log's summary)."""
        out = [f"with this ground truth, {mode} would be caught: {answer}" for mode, answer in self.detects.items()]
        for name, negative in self.negatives.items():
            answer = {True: "yes", False: "no", None: "cannot tell"}[negative["within_noise"]]
            out.append(f"control {name} (a correct engine) within noise: {answer}")
        tic0 = self.resolution.get("w1", {}).get("tic0", {})
        if tic0:
            out.append(
                f"the smallest W1 separated on TIC 0: {_shown(tic0['smallest_separated'])}; the largest within "
                f"noise: {_shown(tic0['largest_within_noise'])}"
            )
        return out


def _shown(value) -> str:
    return "none" if value is None else f"{value:.3g}"
