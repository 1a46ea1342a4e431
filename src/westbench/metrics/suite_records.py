"""The pieces of one weighting's scores that the metric suite writes: its ``metrics.csv`` rows (:data:`TABLE_COLUMNS`)
and the records of a statistic's interval and noise floor, every number finite or null.

Examples
--------
>>> values = {"contact_map_w1_A": 0.5, "bonds_outside_share": 0.0, "coverage": 1.0, "effective_frames": 10.0}
>>> [(row["distribution"], row["metric"], row["value"]) for row in single_number_rows("we", values)]
[('contact_map', 'w1_A', 0.5), ('bonds', 'share_outside_3.5-4.5A', 0.0), ('tic01', 'coverage', 1.0), \
('weights', 'effective_frames', 10.0)]
>>> floor_record(None, [("w1", "tic0")]), floor_bounds(None, 0), finite(float("nan")), tica_quality({})
({}, (None, None, None), None, ('', set()))
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from westbench.metrics.intervals import BootstrapResult
from westbench.metrics.noise_floor import NoiseFloor
from westbench.metrics.record import SCALAR_METRICS

__all__ = [
    "TABLE_COLUMNS",
    "finite",
    "floor_bounds",
    "floor_record",
    "interval_record",
    "single_number_rows",
    "statistic_row",
    "tica_quality",
]

TABLE_COLUMNS = [
    "weighting",
    "distribution",
    "metric",
    "value",
    "ci_low",
    "ci_high",
    "bias",
    "floor",
    "floor_low",
    "floor_high",
    "verdict",
    "note",
]


def tica_quality(attrs: Mapping) -> tuple[str, set[int]]:
    """The TICA's caveat and the TICs without a timescale, from a projected ground truth's frames attributes
    (:meth:`westbench.tica.model.TicaModel.frames_attrs`; none in files written before them)."""
    import json

    from westbench.tica.model import TICA_CAVEAT_ATTR, TICS_WITHOUT_TIMESCALE_ATTR

    tics = attrs.get(TICS_WITHOUT_TIMESCALE_ATTR, [])
    if isinstance(tics, str):
        tics = json.loads(tics)
    return str(attrs.get(TICA_CAVEAT_ATTR, "") or ""), {int(k) for k in np.ravel(tics)}


def floor_record(floor: NoiseFloor | None, keys) -> dict:
    """{metric: {distribution: {value, low, high}}, splits, units, of_units} of a noise floor ({} when none)."""
    if floor is None:
        return {}
    out: dict = {"w1": {}, "kl": {}, "splits": floor.splits, "units": floor.units, "of_units": floor.of_units}
    for i, (metric, name) in enumerate(keys):
        out[metric][name] = {
            "value": finite(floor.value[i]),
            "low": finite(floor.low[i]),
            "high": finite(floor.high[i]),
        }
    return out


def finite(value) -> float | None:
    """A float, or None when not finite (JSON null)."""
    return float(value) if value is not None and np.isfinite(value) else None


def floor_bounds(floor: NoiseFloor | None, i: int) -> tuple[float | None, float | None, float | None]:
    """The noise floor of statistic ``i``: its value, low and high (each None where not finite, all None without a
    floor)."""
    if floor is None:
        return None, None, None
    return finite(floor.value[i]), finite(floor.low[i]), finite(floor.high[i])


def interval_record(interval: BootstrapResult, i: int) -> dict:
    """{low, high, bias, extended, collapsed, widened} of statistic ``i``'s bootstrap interval (``metrics.json``
    ``intervals``)."""
    return {
        "low": finite(interval.low[i]),
        "high": finite(interval.high[i]),
        "bias": finite(interval.bias[i]),
        "extended": bool(interval.extended[i]),
        "collapsed": bool(interval.collapsed[i]) if interval.collapsed is not None else False,
        "widened": round(float(interval.widening[i]), 4),
    }


def statistic_row(
    weighting: str,
    metric: str,
    name: str,
    estimate: float | None,
    interval: Mapping,
    floor: tuple,
    verdict: str,
    note: str,
) -> dict:
    """The ``metrics.csv`` row of one statistic: its estimate, ``interval`` (:func:`interval_record`, {} without
    one), ``floor`` (:func:`floor_bounds`), verdict and note."""
    floor_value, floor_low, floor_high = floor
    return {
        "weighting": weighting,
        "distribution": name,
        "metric": metric,
        "value": estimate,
        "ci_low": interval.get("low"),
        "ci_high": interval.get("high"),
        "bias": interval.get("bias"),
        "floor": floor_value,
        "floor_low": floor_low,
        "floor_high": floor_high,
        "verdict": verdict,
        "note": note,
    }


def single_number_rows(weighting: str, values: Mapping) -> list[dict]:
    """The ``metrics.csv`` rows of one weighting's single-number metrics (:data:`SCALAR_METRICS`), its effective
    frames and, under the msm weighting, the weight outside the MSM's connected set."""
    rows = [
        {"weighting": weighting, "distribution": m.distribution, "metric": m.metric, "value": values[m.name]}
        for m in SCALAR_METRICS
    ]
    rows.append(
        {
            "weighting": weighting,
            "distribution": "weights",
            "metric": "effective_frames",
            "value": values["effective_frames"],
        }
    )
    if "msm" in values:
        rows.append(
            {
                "weighting": weighting,
                "distribution": "weights",
                "metric": "outside_connected_share",
                "value": values["msm"]["outside_connected_share"],
            }
        )
    return rows
