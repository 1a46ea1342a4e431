"""The parts of ``metrics.json`` an engine's scoring computes beside each weighting's scores, one step each: what
became of the exported frames, the macrostates used, the TIC 0/1 KL at other bin counts, the bootstrap's units, and
the whole record of an engine with no frame left to score.

Each step returns the values of fields :mod:`westbench.metrics.record` declares (``RECORD_FIELDS``), under their
names, for :func:`westbench.metrics.record.make_record`; :func:`westbench.metrics.engine_scoring.score_frames` runs
them in order.

Examples
--------
>>> import numpy as np
>>> frames = exported_frames({"ca": np.zeros((4, 3, 3)), "weight": np.full(4, 0.25), "ok": np.array([1, 1, 1, 0]),
...                           "traj": np.zeros(4, int), "time_ps": np.arange(4.0)})
>>> frames.fields()
{'frames_left_out': 1, 'weight_left_out': 0.25, 'nonfinite_frames_dropped': 0}
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Mapping

import numpy as np

from westbench.geometry.sanity import not_checked
from westbench.io.canonical import canonical_frames
from westbench.io.frames import DROPPED_ATTR, ok_frames
from westbench.metrics.divergences import kl_2d
from westbench.metrics.metastable import MacrostateModel
from westbench.metrics.record import empty_record
from westbench.metrics.settings import MetricSettings
from westbench.metrics.suite import MetricSuite

__all__ = [
    "REDUCED_MACROSTATES",
    "ExportedFrames",
    "exported_frames",
    "figure_weighting",
    "frame_fields",
    "kl_tic01_by_bins",
    "macrostates_field",
    "nothing_to_score_record",
    "resampling_field",
]

log = logging.getLogger("westbench.metrics")

#: ``macrostates.why`` where PCCA+ used fewer sets than requested and the shared model gives no reason of its own.
REDUCED_MACROSTATES = (
    "the ground truth's cluster MSM resolves fewer metastable sets than requested "
    "(too few frames or transitions); PCCA+ used the largest count it supports"
)


@dataclass(frozen=True)
class ExportedFrames:
    """What became of an engine's exported frames: ``frames`` are those scored (in canonical order, segments of
    walkers the engine ended left out), ``exported`` how many there were, ``left_out`` how many of them belong to
    ended walkers and ``weight_left_out`` their share of the exported weight, ``dropped`` how many frames with
    non-finite coordinates were dropped at import (the frames file's ``nonfinite_frames_dropped``)."""

    frames: Mapping
    exported: int
    left_out: int
    weight_left_out: float
    dropped: int

    def fields(self) -> dict:
        """The record fields of what was left out: ``frames_left_out``, ``weight_left_out`` and
        ``nonfinite_frames_dropped``."""
        return {"frames_left_out": self.left_out, "weight_left_out": self.weight_left_out, DROPPED_ATTR: self.dropped}


def exported_frames(exported: Mapping) -> ExportedFrames:
    """The frames of an engine's export to score (:class:`ExportedFrames`): copies of a frame and weightless rows are
    no frames (:mod:`westbench.io.canonical`), segments of walkers a CG engine ended (exploded, imploded) are left
    out (:func:`westbench.io.frames.ok_frames`)."""
    exported = canonical_frames(exported)
    model = ok_frames(exported)
    left_out = len(exported["ca"]) - len(model["ca"])
    if left_out:
        log.warning("%d of %d frames left out: segments of walkers the engine ended", left_out, len(exported["ca"]))
    dropped = int(getattr(exported, "attrs", {}).get(DROPPED_ATTR, 0) or 0)
    exported_weight = float(np.sum(exported["weight"])) if "weight" in exported else 0.0
    weight_left_out = (
        max(0.0, 1.0 - float(np.sum(model["weight"])) / exported_weight) if left_out and exported_weight > 0 else 0.0
    )
    return ExportedFrames(model, len(exported["ca"]), left_out, weight_left_out, dropped)


def frame_fields(suite: MetricSuite, exported: ExportedFrames, simulated_ps: tuple[float, float]) -> dict:
    """The record fields of the frames: those scored (``frames``, ``groundtruth_frames``, ``discarded_iterations``),
    those left out (:meth:`ExportedFrames.fields`) and the model's simulated time (``simulated_ps``: the longest and
    the aggregate, :func:`westbench.metrics.suite_frames.simulated_time_ps`)."""
    longest, aggregate = simulated_ps
    return {
        "frames": len(suite.model["ca"]),
        "discarded_iterations": suite.discarded_iterations,
        "simulated_ps": {"longest": longest, "aggregate": aggregate},
        **exported.fields(),
        "groundtruth_frames": len(suite.groundtruth["ca"]),
    }


def macrostates_field(requested: int, used: int, shared: MacrostateModel | None) -> dict:
    """The record's ``macrostates``: the count requested and used, whether it was reduced and why (the shared
    model's reason, else :data:`REDUCED_MACROSTATES`), and whether the protein's shared model was used.

    >>> macrostates_field(5, 2, None)["why"] == REDUCED_MACROSTATES, macrostates_field(2, 2, None)["reduced"]
    (True, False)
    """
    return {
        "requested": requested,
        "used": used,
        "reduced": used < requested,
        "why": "" if used >= requested else (shared.why if shared is not None and shared.why else REDUCED_MACROSTATES),
        "shared_model": shared is not None,
    }


def figure_weighting(suite: MetricSuite, weightings: list[str]) -> str:
    """The weighting of the figures and of the KL's sensitivity to the binning: the first that could be had (no
    caveat under its name), else the first."""
    return next((w for w in weightings if w not in suite.caveats.reasons), weightings[0])


def kl_tic01_by_bins(suite: MetricSuite, weighting: str) -> dict:
    """The record's ``kl_tic01_by_bins``: the histogram KL of TIC 0/1 under ``weighting`` at each of the settings'
    ``kl_sensitivity_bins`` (the sensitivity of a headline number to the binning); no values where the weighting
    could not be had."""
    s = suite.settings  # the given settings over the suite's defaults
    weights = suite.weights(weighting) if weighting not in suite.caveats.reasons else None
    values = {}
    if weights is not None:
        gt_tics, model_tics = suite.groundtruth["tics"][:, :2], suite.model["tics"][:, :2]
        values = {
            int(b): _finite(kl_2d(gt_tics, model_tics, suite.groundtruth_weights, weights, b, s.kl_floor))
            for b in s.kl_sensitivity_bins
        }
    return {"weighting": weighting, "values": values}


def resampling_field(suite: MetricSuite) -> dict:
    """The record's ``resampling``: the bootstrap's units on each side, its replicates, the model's memory in WE
    iterations, the interval method and level."""
    return {
        "groundtruth": suite.groundtruth_unit_kind,
        "model": suite.model_unit_kind,
        "replicates": int(suite.settings.bootstrap),
        "model_memory_iterations": None if suite.model_memory is None else round(suite.model_memory, 3),
        "method": "BCa, widened for few units",
        "level": 0.95,
    }


def nothing_to_score_record(
    protein: str, engine: str, weightings: list[str], settings: Mapping, exported: ExportedFrames
) -> dict:
    """The record of an engine with no frame left to score (every walker ended, or none exported): every value
    null, the reason recorded (:func:`westbench.metrics.record.empty_record`).

    >>> frames = ExportedFrames({"ca": []}, exported=0, left_out=0, weight_left_out=0.0, dropped=0)
    >>> nothing_to_score_record("p", "e", ["we"], {}, frames)["not_estimable"]
    {'frames': 'no frame to score: the engine exported none'}
    """
    reason = (
        f"no frame to score: all {exported.exported} exported frames belong to walkers the engine ended "
        "(exploded or imploded)"
        if exported.exported
        else "no frame to score: the engine exported none"
    )
    log.warning("%s %s: %s", protein, engine, reason)
    return empty_record(
        weightings,
        reason,
        protein=protein,
        engine=engine,
        macrostates={
            "requested": MetricSettings.of(settings).macrostates,
            "used": 0,
            "reduced": True,
            "why": reason,
            "shared_model": False,
        },
        kl_tic01_by_bins={"weighting": weightings[0], "values": {}},
        frames_left_out=exported.exported,
        **{DROPPED_ATTR: exported.dropped},
        sanity=not_checked(reason).to_dict(),
        settings=settings,
        figures={"weighting": weightings[0], "files": []},
    )


def _finite(value):
    return float(value) if value is not None and math.isfinite(value) else None
