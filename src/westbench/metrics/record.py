"""The shape of ``metrics.json``, declared once: every field of the record and of each weighting's scores, with
the value it takes where nothing could be scored, and the single-number metrics with their ``metrics.csv`` row.

A new field is one declaration here and one assignment where it is computed: the empty record of an engine with
no frame (:func:`empty_record`), a weighting that could not be had (:func:`empty_weighting`, its table rows
:func:`not_estimable_rows`), the record written (:func:`make_record`, which refuses an undeclared key) and the
scoring contract's directions (:func:`directed_paths`, :mod:`westbench.metrics.contract`) all read these tables.
Written, every number of the record is finite or null (:func:`finite_or_null`).

Examples
--------
>>> scores = empty_weighting("we", [("w1", "tic0"), ("kl", "tic0")], "one frame")
>>> scores["w1"], scores["verdicts"]["w1"], scores["verdict_notes"]["kl"], scores["coverage"]
({'tic0': None}, {'tic0': 'undetermined'}, {'tic0': 'one frame'}, None)
>>> sorted(scores) == sorted(f.name for f in WEIGHTING_FIELDS if not f.optional)
True
>>> [(row["distribution"], row["metric"]) for row in not_estimable_rows("we", [("w1", "tic0")], "one frame")][1:]
[('contact_map', 'w1_A'), ('bonds', 'share_outside_3.5-4.5A'), ('tic01', 'coverage')]
>>> make_record(protein="p", engine="e", colour="red")
Traceback (most recent call last):
...
KeyError: "metrics.json has no field 'colour': declare it in westbench.metrics.record.RECORD_FIELDS"
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from westbench.io.frames import DROPPED_ATTR
from westbench.metrics.noise_floor import UNDETERMINED

__all__ = [
    "Field",
    "RECORD_FIELDS",
    "RECORD_KEYS",
    "SCALAR_METRICS",
    "directed_paths",
    "WEIGHTING_FIELDS",
    "empty_record",
    "empty_weighting",
    "finite_or_null",
    "make_record",
    "not_estimable_rows",
]


@dataclass(frozen=True)
class Field:
    """One key of a record: its name, its value where nothing could be scored, and what it holds.

    ``optional`` fields appear only where they apply (a trained model's ``training``, the msm weighting's ``msm``).
    ``direction``: which way the numbers at ``within`` (a path below the field, fnmatch segments; the field itself
    when empty) move as the model gets closer to the ground truth: ``lower``, ``higher`` or ``descriptive`` (the
    scoring contract's checks, :mod:`westbench.metrics.contract`, read it); ``absolute`` for a ``lower`` number that
    is a property of the model alone (not 0 against itself). ``row``: a single-number metric's ``metrics.csv`` row
    (distribution, metric).
    """

    name: str
    empty: Callable[[], Any]
    description: str
    optional: bool = False
    direction: str = "descriptive"
    within: str = ""
    absolute: bool = False
    row: tuple[str, str] | None = None

    @property
    def distribution(self) -> str:
        return self.row[0] if self.row else ""

    @property
    def metric(self) -> str:
        return self.row[1] if self.row else ""

    def path(self, parent: str = "") -> str:
        """The record path (fnmatch segments) of the numbers ``direction`` speaks of, below ``parent``."""
        return "/".join(part for part in (parent, self.name, self.within) if part)


def _none() -> None:
    return None


def _per_metric() -> dict:
    return {"w1": {}, "kl": {}}


#: Every key of one weighting's scores (``metrics.json`` ``metrics.<weighting>``).
WEIGHTING_FIELDS = (
    Field("weighting", _none, "the weighting: we, msm or counts"),
    Field("kl_floor", _none, "the histogram KL's floor probability per cell"),
    Field("discarded_iterations", lambda: 0, "leading WE iterations left out as relaxation"),
    Field("effective_frames", _none, "Kish's effective sample size of the model's weights"),
    Field("msm", _none, "the msm weighting's MSM: outside_connected_share, states, connected_states", optional=True),
    Field("noise_floor", dict, "per metric and distribution: the ground truth against itself at the model's size"),
    Field("w1", dict, "W1 per distribution (None where not estimable)", direction="lower", within="*"),
    Field("kl", dict, "KL per distribution (None where not estimable)", direction="lower", within="*"),
    Field("intervals", _per_metric, "per metric and distribution: low, high, bias, extended, collapsed, widened"),
    Field("verdicts", _per_metric, "per metric and distribution: separated, within noise or undetermined"),
    Field("verdict_notes", _per_metric, "per metric and distribution: why a verdict is undetermined"),
    Field("kl_marks", dict, "per distribution: why a KL is no score (pinned by the floor, mostly bias), or ''"),
    Field("kl_estimator", _none, "the KL estimator and its settings"),
    Field("contact_map_diff_A", _none, "the matrix of mean C-alpha distance differences (Angstrom)"),
    Field(
        "contact_map_w1_A",
        _none,
        "mean over residue pairs of the W1 of their distance distributions (Angstrom)",
        direction="lower",
        row=("contact_map", "w1_A"),
    ),
    Field(
        "bonds_outside_share",
        _none,
        "weight of C-alpha bonds outside 3.5-4.5 Angstrom",
        direction="lower",
        absolute=True,
        row=("bonds", "share_outside_3.5-4.5A"),
    ),
    Field(
        "coverage",
        _none,
        "share of the ground truth's occupied TIC 0/1 cells the model reaches",
        direction="higher",
        row=("tic01", "coverage"),
    ),
    Field(
        "macrostate_populations",
        dict,
        "the model's population of each ground-truth macrostate, total_variation",
        direction="lower",
        within="total_variation",
    ),
)

#: Every key of ``metrics.json``.
RECORD_FIELDS = (
    Field("protein", _none, "the protein (the job's identity, not parsed from paths)"),
    Field("engine", _none, "the engine (the job's identity)"),
    Field("frames", lambda: 0, "model frames scored"),
    Field("frames_left_out", lambda: 0, "exported frames of walkers the engine ended"),
    Field("weight_left_out", lambda: 0.0, "their share of the exported weight"),
    Field(DROPPED_ATTR, lambda: 0, "frames with non-finite coordinates dropped at import"),
    Field("groundtruth_frames", _none, "ground-truth frames scored against"),
    Field("discarded_iterations", lambda: 0, "leading WE iterations left out as relaxation"),
    Field("simulated_ps", lambda: {"longest": 0.0, "aggregate": 0.0}, "the longest and the summed simulated time"),
    Field("macrostates", dict, "requested, used, reduced, why, shared_model"),
    Field(
        "kl_tic01_by_bins",
        dict,
        "the TIC 0/1 KL at other bin counts: weighting, values",
        direction="lower",
        within="values/*",
    ),
    Field("resampling", dict, "the bootstrap's units, replicates, method and level"),
    Field("noise_floor", dict, "the first weighting's noise floor"),
    Field("training", _none, "a trained CG model's training summary", optional=True),
    Field("not_estimable", dict, "every caveat by key: what could not be estimated and why"),
    Field("sanity", dict, "the engine sanity checks (westbench.geometry.sanity)"),
    Field("settings", dict, "the metric settings the job was given"),
    Field("figures", dict, "the figures' weighting and files"),
    Field("metrics", dict, "per weighting, its scores (WEIGHTING_FIELDS)"),
)

#: Every key of ``metrics.json`` (the optional ones included).
RECORD_KEYS = tuple(f.name for f in RECORD_FIELDS)
#: The single-number metrics of every weighting, in their ``metrics.csv`` order.
SCALAR_METRICS = tuple(f for f in WEIGHTING_FIELDS if f.row)


def directed_paths(direction: str, absolute: bool | None = None) -> tuple[str, ...]:
    """Record paths (fnmatch segments, ``*`` for the weighting) of the numbers that move ``direction`` as the model
    gets closer to the ground truth (:class:`Field`); ``absolute`` True or False keeps only those that are, or are not,
    a property of the model alone.

    >>> directed_paths("higher")
    ('metrics/*/coverage',)
    """
    fields = [(f, "") for f in RECORD_FIELDS] + [(f, "metrics/*") for f in WEIGHTING_FIELDS]
    return tuple(
        f.path(parent)
        for f, parent in fields
        if f.direction == direction and (absolute is None or f.absolute == absolute)
    )


def _complete(fields: Iterable[Field], given: Mapping, what: str, owner: str) -> dict:
    declared = {f.name for f in fields}
    unknown = sorted(set(given) - declared)
    if unknown:
        raise KeyError(f"{what} has no field {unknown[0]!r}: declare it in westbench.metrics.record.{owner}")
    return {
        f.name: given[f.name] if f.name in given else f.empty()
        for f in fields
        if not f.optional or given.get(f.name) is not None
    }


def make_record(**values) -> dict:
    """The ``metrics.json`` record from its computed ``values``: every declared field in order, an undeclared key
    refused (KeyError), a field not given at its empty value, an optional one left out unless given."""
    return _complete(RECORD_FIELDS, values, "metrics.json", "RECORD_FIELDS")


def make_weighting(**values) -> dict:
    """One weighting's scores from their computed ``values``, as :func:`make_record` makes the record."""
    return _complete(WEIGHTING_FIELDS, values, "a weighting's scores", "WEIGHTING_FIELDS")


def empty_weighting(weighting: str, keys: Iterable[tuple[str, str]], reason: str, **known) -> dict:
    """A weighting that could not be had: every statistic (``keys``: (metric, distribution)) None, its verdict
    undetermined with ``reason``, every other field at its empty value unless ``known``."""
    keys = list(keys)
    per = {metric: [name for m, name in keys if m == metric] for metric in ("w1", "kl")}
    return make_weighting(
        weighting=weighting,
        w1={name: None for name in per["w1"]},
        kl={name: None for name in per["kl"]},
        verdicts={metric: {name: UNDETERMINED for name in names} for metric, names in per.items()},
        verdict_notes={metric: {name: reason for name in names} for metric, names in per.items()},
        **known,
    )


def not_estimable_rows(weighting: str, keys: Iterable[tuple[str, str]], reason: str) -> list[dict]:
    """The ``metrics.csv`` rows of a weighting that could not be had: every statistic and single-number metric
    without a value, its note the reason."""
    rows = [
        {
            "weighting": weighting,
            "distribution": name,
            "metric": metric,
            "value": None,
            "verdict": UNDETERMINED,
            "note": reason,
        }
        for metric, name in keys
    ]
    return rows + [
        {"weighting": weighting, "distribution": m.distribution, "metric": m.metric, "value": None, "note": reason}
        for m in SCALAR_METRICS
    ]


def empty_record(weightings: Iterable[str], reason: str, **known) -> dict:
    """The record of an engine with nothing to score: every weighting empty (:func:`empty_weighting`, no
    statistic), ``not_estimable`` holding ``reason`` under ``frames``, the rest at its empty value unless ``known``."""
    weightings = list(weightings)
    metrics = {w: empty_weighting(w, [], reason) for w in weightings}
    return make_record(not_estimable={"frames": reason}, metrics=metrics, **known)


def finite_or_null(value):
    """``value`` with every non-finite float replaced by None (JSON null, never NaN), recursively.

    Examples
    --------
    >>> finite_or_null({"a": [1.0, float("nan")], "b": {"c": float("inf")}})
    {'a': [1.0, None], 'b': {'c': None}}
    """
    if isinstance(value, dict):
        return {k: finite_or_null(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_or_null(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
