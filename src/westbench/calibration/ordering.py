"""Whether a perturbation family's divergence grows with the perturbation's size: the ordering checks of the study.

A family is the null and the perturbations of one change (``temperature`` or ``contact``), each direction (hotter
and colder, stronger and weaker contacts) ordered on its own: :func:`monotone` reads the point estimates where the
study resolves a step, :func:`ordered` the intervals everywhere a step predicts an order. Both answer per cell
(``"<metric> <distribution>"``) and are read by :func:`westbench.calibration.checks.checks`.

Examples
--------
>>> table = pd.DataFrame({"kind": ["null", "perturbation", "perturbation"], "temperature_scale": [1.0, 1.1, 1.2],
...                       "contact_scale": 1.0, "metric": "w1", "distribution": "tic0", "value": [0.05, 0.3, 0.6],
...                       "ci_low": [0.04, 0.27, 0.54], "ci_high": [0.06, 0.33, 0.66],
...                       "expected": ["within noise", "separated", "separated"]})
>>> monotone(table, "temperature"), ordered(table, "temperature")
({'w1 tic0': True}, {'w1 tic0': True})
>>> table.loc[2, ["value", "ci_low", "ci_high"]] = [0.2, 0.18, 0.22]  # +20 % significantly below +10 %
>>> monotone(table, "temperature"), ordered(table, "temperature")
({'w1 tic0': False}, {'w1 tic0': False})
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from westbench.metrics.noise_floor import SEPARATED, WITHIN_NOISE

__all__ = ["monotone", "ordered"]


def _family(table: pd.DataFrame, change: str) -> pd.DataFrame:
    """The null and the perturbations of one family (``temperature`` or ``contact``), with their size |scale - 1|
    and direction (+1 stronger, -1 weaker; the null 0)."""
    column = f"{change}_scale"
    other = "contact_scale" if change == "temperature" else "temperature_scale"
    rows = table[(table["kind"].isin(["null", "perturbation"])) & (table[other] == 1.0)]
    rows = rows.assign(cell=rows["metric"] + " " + rows["distribution"])
    return rows.assign(size=(rows[column] - 1.0).abs(), direction=np.sign(rows[column] - 1.0))


def _directions(table: pd.DataFrame, change: str):
    """(distribution, rows sorted by size) of each direction of a family, the null in both: a hotter and a colder
    run, or stronger and weaker contacts, are not ordered against each other, only along their own direction."""
    family = _family(table, change)
    for direction in (1.0, -1.0):
        rows = family[family["direction"].isin([0.0, direction])]
        if (rows["direction"] == direction).any():
            for name, group in rows.groupby("cell"):
                yield name, group.sort_values("size")


def monotone(table: pd.DataFrame, change: str) -> dict:
    """Per distribution, whether W1 grows with the perturbation's size wherever the study resolves the step: every
    perturbation whose prediction must come out separated (expected ``separated``) scores above every smaller
    one of its direction, null included (point estimates). A perturbation about the size of the noise (expected
    ``either``) is left out as the larger side; the interval check (:func:`ordered`) still holds it."""
    out: dict = {}
    for name, group in _directions(table, change):
        if group["size"].nunique() < 3:
            continue
        values = group["value"].astype(float).to_numpy()
        resolved = (group["expected"].astype(str) == SEPARATED).to_numpy()
        grows = all(values[j] > values[i] for j in range(len(group)) if resolved[j] for i in range(j))
        out[name] = bool(out.get(name, True) and grows)
    return out


def ordered(table: pd.DataFrame, change: str) -> dict:
    """Per distribution, whether no larger perturbation scores significantly below a smaller one of its direction
    (its interval's upper bound under the smaller's lower bound): the ordering the intervals can vouch for.

    A perturbation whose prediction is expected *within noise* on that distribution (every step of it below half
    the floor: the bonds' KL of a contact change) predicts no ordering there and is left out as the larger side,
    as :func:`monotone` leaves out what it does not resolve.
    """
    out: dict = {}
    for name, group in _directions(table, change):
        group = group[(group["kind"] == "null") | (group["expected"].astype(str) != WITHIN_NOISE)]
        if group["size"].nunique() < 2:
            continue
        low, high = group["ci_low"].astype(float).to_numpy(), group["ci_high"].astype(float).to_numpy()
        vouched = all(high[j] >= low[i] for i in range(len(group)) for j in range(i + 1, len(group)))
        out[name] = bool(out.get(name, True) and vouched)
    return out
