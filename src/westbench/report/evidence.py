"""What a run's own records say about how far its scores can be read, per protein and engine: the training record
(a CG model that failed to learn), the sanity checks (an engine that is plainly broken), the TICA's well-posedness,
KL values pinned by the bin floor, and the controls (which distributions the run can resolve at all).

The bottom line (:mod:`westbench.report.bottom_line`) ranks only what :func:`exclusion` leaves in; the tables and
the heatmap show why a value is left out. Every source is read defensively: a ``metrics.json`` written before a
field existed, or a run without controls (``controls.json`` absent), reads as "not known", never as an error.

Sources, each with its owner:

- ``metrics.json`` ``training`` (:mod:`westbench.metrics.score`; its wording :mod:`westbench.presentation.training`);
- ``metrics.json`` ``sanity`` (``passed``, ``failed``, ``checks``: :mod:`westbench.geometry.sanity`) and the tables'
  ``sanity_failed`` column (:mod:`westbench.metrics.tables`);
- ``metrics.json`` ``not_estimable.tica`` (the TICA's caveat, :func:`westbench.metrics.suite.tica_quality`);
- ``metrics.json`` ``metrics.<weighting>.kl_marks`` (:func:`westbench.metrics.kl_rows.kl_mark`: ``pinned``, ``bias`` or
  "" per distribution), and for a record from before them, :func:`kl_pinned`'s reading of the value and its floor;
- ``controls.json`` (:mod:`westbench.metrics.controls`; read by :func:`read_controls`).

Examples
--------
>>> engine = EngineEvidence("cg_a", training={"learned": False, "best_epoch": 3, "relative_drop": 0.0})
>>> protein = ProteinEvidence("p", {"cg_a": engine}, tica_caveat="54 lagged pairs for 45 features")
>>> row = {"engine": "cg_a", "metric": "W1", "distribution": "tic0", "weighting": "we", "verdict": "within noise",
...        "value": 0.3, "low": 0.1, "high": 0.5, "floor_high": 1.0, "note": ""}
>>> exclusion(row, protein)
'the TICA is not well posed (54 lagged pairs for 45 features)'
>>> exclusion({**row, "distribution": "rg"}, protein), protein.flags()
('', {'cg_a': "failed to learn: epoch 3 kept, validation loss 0 % below the start's"})
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from westbench.presentation.training import failure_to_learn

#: Distributions whose values are TICs of the protein's TICA.
TIC_DISTRIBUTIONS = ("tic0", "tic1", "tic2", "tic3", "tic01")
#: Where the KL estimators mark a value that is no score in ``metrics.json`` (each weighting's block):
#: ``{distribution: mark}``, "" for a score (westbench.metrics.kl_rows.kl_mark); a record without it is read by
#: :func:`kl_pinned`.
KL_MARKS = "kl_marks"
#: The suite's own note for a KL floor at or above the largest value any model could reach.
UNREACHABLE_NOTE = "cannot be separated: no model could score above"
PINNED = "pinned by the bin floor"
BIASED = "mostly bias"
#: What each KL mark reads as (the start of the reason a value is no score).
MARK_TEXT = {
    "pinned": PINNED,
    "bias": f"{BIASED}: the estimator's bias at this sample size exceeds its noise (the ground truth against itself "
    "reads more than that reading's spread)",
}
#: How *within noise* reads where the controls show the run could not have told (the reason's start).
UNRESOLVED = "not distinguishable at this resolution"


@dataclass
class EngineEvidence:
    """One engine's record of what limits its scores (see the module's description)."""

    engine: str
    training: Mapping | None = None
    sanity: Mapping | None = None
    kl_marks: Mapping[tuple[str, str], str] = field(default_factory=dict)  # (weighting, distribution) -> reason
    kl_floor: float | None = None
    groundtruth_frames: int | None = None

    @property
    def flag(self) -> str:
        """The failure-to-learn flag that goes beside the engine's name ("" when it learned or is not trained)."""
        return failure_to_learn(self.training, "flag")

    @property
    def failed_checks(self) -> list[str]:
        """The sanity checks it failed (none when they passed or were not run)."""
        failed = (self.sanity or {}).get("failed") or []
        return [str(name) for name in ([failed] if isinstance(failed, str) else failed) if str(name)]

    def failure(self) -> str:
        """Its failed sanity checks with their messages ("" when none), e.g. ``chirality: closer to the mirror``."""
        checks = (self.sanity or {}).get("checks") or {}
        parts = []
        for name in self.failed_checks:
            message = str((checks.get(name) or {}).get("message") or "").strip()
            parts.append(f"{name}: {message}" if message else name)
        return "; ".join(parts)


@dataclass
class ProteinEvidence:
    """One protein's evidence: each engine's, the TICA's caveat ("" when well posed or not recorded) and its
    controls (``controls.json``; None when the run has none)."""

    protein: str
    engines: dict[str, EngineEvidence] = field(default_factory=dict)
    tica_caveat: str = ""
    controls: Mapping | None = None

    def engine(self, name: str) -> EngineEvidence:
        return self.engines.get(name) or EngineEvidence(name)

    def flags(self) -> dict[str, str]:
        """Failure-to-learn flags by engine (only engines that have one)."""
        return {name: e.flag for name, e in self.engines.items() if e.flag}

    def failed(self) -> dict[str, str]:
        """Engines that failed a sanity check, with what failed."""
        return {name: e.failure() for name, e in self.engines.items() if e.failed_checks}

    def resolved(self, metric: str, distribution: str) -> bool | None:
        """Whether the controls show this run resolves ``metric`` on ``distribution`` (None: no controls, or they
        do not cover it)."""
        entry = _resolution(self.controls, metric, distribution)
        return None if entry is None or "resolved" not in entry else bool(entry["resolved"])


def _resolution(controls: Mapping | None, metric: str, distribution: str) -> Mapping | None:
    by_metric = (controls or {}).get("resolution") or {}
    for key, entries in by_metric.items():
        if str(key).lower() == str(metric).lower():
            return (entries or {}).get(distribution)
    return None


def largest_reachable_kl(kl_floor: float | None, groundtruth_frames: int | None) -> float | None:
    """A lower bound of the largest KL any model can score against a ground truth of ``groundtruth_frames`` frames
    with empty bins floored at ``kl_floor``: log(1 / kl_floor) less the ground truth's histogram entropy, at most
    log(frames). None when either is unknown.

    Examples
    --------
    >>> round(largest_reachable_kl(1e-8, 60), 2), largest_reachable_kl(None, 60)
    (14.33, None)
    """
    if not kl_floor or not groundtruth_frames or kl_floor <= 0 or groundtruth_frames < 1:
        return None
    return max(0.0, math.log(1.0 / kl_floor) - math.log(groundtruth_frames))


def kl_pinned(row: Mapping, reachable: float | None) -> str:
    """Why a KL value is no score ("" when it is one), from the value, its noise floor and its note: the suite found
    the floor at or above the largest reachable value; or the value reaches ``reachable`` (every bit of its mass in
    empty bins); or the ground truth against itself already scores half of it (about half the ground truth's mass
    falls in bins its other half leaves empty, so a KL counts empty bins at the floor, not a difference).

    Examples
    --------
    >>> print(kl_pinned({"value": 3.1, "floor_high": 16.5, "note": ""}, 14.3))  # doctest: +NORMALIZE_WHITESPACE
    pinned by the bin floor: the ground truth against itself already scores 16.5 of the at least 14.3 nats any
    model could reach
    >>> kl_pinned({"value": 0.2, "floor_high": 1.7, "note": ""}, 14.3)
    ''
    """
    note, value, floor = str(row.get("note") or ""), _float(row.get("value")), _float(row.get("floor_high"))
    if UNREACHABLE_NOTE in note:
        return f"{PINNED}: {note.split(';')[0]}"
    if reachable is None or reachable <= 0:
        return ""
    if not math.isnan(value) and value >= reachable:
        return f"{PINNED}: {value:.3g} nats reach the at least {reachable:.3g} any model could"
    if not math.isnan(floor) and floor >= reachable / 2:
        return (
            f"{PINNED}: the ground truth against itself already scores {floor:.3g} of the at least {reachable:.3g} "
            "nats any model could reach"
        )
    return ""


def _float(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def kl_reason(row: Mapping, evidence: ProteinEvidence) -> str:
    """Why one KL row (``engine``, ``weighting``, ``distribution``, ``value``, ``floor_high``, ``note``) is no score:
    the estimator's own mark where the record has one, else :func:`kl_pinned`."""
    engine = evidence.engine(str(row.get("engine", "")))
    key = (str(row.get("weighting", "")), str(row.get("distribution", "")))
    if key in engine.kl_marks:  # the estimator's own verdict, "" for a score
        mark = engine.kl_marks[key]
        return MARK_TEXT.get(mark, str(mark)) if mark else ""
    return kl_pinned(row, largest_reachable_kl(engine.kl_floor, engine.groundtruth_frames))


def tica_short(caveat: str) -> str:
    """The first clause of the TICA's caveat (what is wrong, without the list of TICs).

    Examples
    --------
    >>> tica_short("TICA fitted on 54 lagged frame pairs for 45 features (1.2 per feature): its TICs may follow noise")
    'TICA fitted on 54 lagged frame pairs for 45 features (1.2 per feature)'
    """
    return caveat.split(": ")[0].split("; ")[0].strip()


def exclusion(row: Mapping, evidence: ProteinEvidence | None) -> str:
    """Why one value (a row of :func:`westbench.report.bottom_line.long_form`) may not rank ("" when it may), the
    first that holds: the engine failed a sanity check; it is a KL that is no score; the distribution is a TIC of a
    TICA that is not well posed; the controls show the run cannot resolve it."""
    if evidence is None:
        return ""
    engine, distribution = evidence.engine(str(row.get("engine", ""))), str(row.get("distribution", ""))
    metric = str(row.get("metric", ""))
    if engine.failed_checks:
        return f"{engine.engine} failed its sanity check ({', '.join(engine.failed_checks)})"
    if metric.lower() == "kl":
        pinned = kl_reason(row, evidence)
        if pinned:
            return pinned
    if evidence.tica_caveat and distribution in TIC_DISTRIBUTIONS:
        return f"the TICA is not well posed ({tica_short(evidence.tica_caveat)})"
    if evidence.resolved(metric, distribution) is False:
        return f"{UNRESOLVED}: the controls show this run separates no known-bad engine here"
    return ""


def read_metrics_evidence(record: Mapping, engine: str) -> tuple[EngineEvidence, str]:
    """An engine's evidence and the TICA caveat from its ``metrics.json`` (as a mapping)."""
    marks = {
        (weighting, distribution): str(mark or "")
        for weighting, block in (record.get("metrics") or {}).items()
        for distribution, mark in ((block or {}).get(KL_MARKS) or {}).items()
    }
    settings = record.get("settings") or {}
    found = EngineEvidence(
        engine,
        training=record.get("training") or None,
        sanity=record.get("sanity") or None,
        kl_marks=marks,
        kl_floor=_positive(settings.get("kl_floor")),
        groundtruth_frames=record.get("groundtruth_frames"),
    )
    caveat = str((record.get("not_estimable") or {}).get("tica") or "")
    return found, caveat.removeprefix("the TICA is not well posed: ")


def _positive(value) -> float | None:
    value = _float(value)
    return value if value > 0 else None


def read_evidence(
    metrics: Sequence[tuple[str, str, object]], controls: Sequence[tuple[str, object]] = ()
) -> dict[str, ProteinEvidence]:
    """Per protein, its evidence from every ``metrics.json`` ((protein, engine, path) records) and its
    ``controls.json`` ((protein, path); a missing file is no controls)."""
    found: dict[str, ProteinEvidence] = {}
    for protein, engine, path in metrics:
        evidence = found.setdefault(protein, ProteinEvidence(protein))
        engine_evidence, caveat = read_metrics_evidence(json.loads(Path(path).read_text()), engine)
        evidence.engines[engine] = engine_evidence
        evidence.tica_caveat = evidence.tica_caveat or caveat
    for protein, path in controls:
        found.setdefault(protein, ProteinEvidence(protein)).controls = read_controls(path)
    return found


def read_controls(path) -> dict | None:
    """A protein's ``controls.json`` (None when there is no such file: controls disabled, or a run from before
    them). Read here as the report reads ``metrics.json``: the report stage does not import the metric stage's
    modules (tests/unit/test_layers.py), and the file is the interface (``westbench.metrics.controls.read_controls``
    is the same reading).

    Examples
    --------
    >>> read_controls("no/such/controls.json") is None, read_controls(None) is None
    (True, True)
    """
    if path is None or not Path(path).is_file():
        return None
    return json.loads(Path(path).read_text())


def sanity_from_table(evidence: Mapping[str, ProteinEvidence], table) -> None:
    """Add the failed sanity checks of a W1/KL table's ``sanity_failed`` column to engines whose record lacks them."""
    if table is None or "sanity_failed" not in getattr(table, "columns", ()):
        return
    for row in table.to_dict("records"):
        text = row.get("sanity_failed")
        if not isinstance(text, str) or not text.strip():
            continue
        protein = evidence.setdefault(str(row["protein"]), ProteinEvidence(str(row["protein"])))
        engine = protein.engines.setdefault(str(row["engine"]), EngineEvidence(str(row["engine"])))
        if not engine.failed_checks:
            engine.sanity = {"passed": False, "failed": [n for n in text.split(";") if n.strip()], "checks": {}}
