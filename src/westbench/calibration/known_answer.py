"""Does an engine's score agree with its known answer? An interval of their difference, both sides' noise in it.

The known answer of a calibration engine is the ground truth reweighted to that engine's equilibrium
(:mod:`westbench.calibration.reweighting`), scored against the ground truth: it is computed from the same finite
ground truth as the engine's score, so it carries that sample's noise too, and reweighting amplifies it (a few
high-energy runs carry a hotter engine's weight). Asking whether the engine's interval holds the known answer
treats the answer as exact and finds "misses" that are the answer's own noise. The honest question is whether
``score - known answer`` is 0 within the noise of both: a bootstrap that resamples the ground truth's units once
for both terms (their shared noise cancels as it should) and the engine's units for the score, with the suite's
BCa interval widened for few units (:func:`westbench.metrics.intervals.unit_bootstrap`). An engine whose known
answer rests on its own sample (:class:`westbench.calibration.known_answer.KnownAnswer`) has that sample's runs
resampled as a third set of units.

Near 0 every finite sample's divergence is biased upward and the known answer's is not, so the question is asked
where the answer is resolved (:func:`westbench.calibration.table.interval_coverage`).

Examples
--------
>>> import numpy as np
>>> def frames(n_runs, shift, seed, per_run=30):
...     r = np.random.default_rng(seed)
...     n = n_runs * per_run
...     return {"ca": np.cumsum(r.normal(0, 0.2, (n, 5, 3)), axis=1), "tics": r.normal(size=(n, 4)) + [shift, 0, 0, 0],
...             "weight": np.full(n, 1 / n), "traj": np.repeat(np.arange(n_runs), per_run),
...             "time_ps": np.tile(np.arange(per_run, dtype=float), n_runs)}
>>> groundtruth = frames(48, 0.0, 1)
>>> tilt = np.exp(groundtruth["tics"][:, 0])  # N(0, 1) reweighted to N(1, 1) on TIC 0
>>> settings = {"bootstrap": 200, "seed": 3}
>>> low, high = difference_intervals(groundtruth, frames(8, 1.0, 2), tilt / tilt.sum(), settings)[("w1", "tic0")]
>>> bool(low <= 0.0 <= high)
True
>>> low, high = difference_intervals(groundtruth, frames(8, 1.6, 4), tilt / tilt.sum(), settings)[("w1", "tic0")]
>>> bool(low > 0.0)
True
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Mapping

import numpy as np

from westbench.errors import WestbenchError
from westbench.metrics.intervals import MIN_UNITS, unit_bootstrap
from westbench.seeds import derive_seed

log = logging.getLogger(__name__)

#: The ground truth's per-frame known-answer weight, carried through the suite's canonical order with its frame.
KNOWN_WEIGHT = "known_answer_weight"

#: The frame columns a known answer's own sample shares with the ground truth (the pooled frames of both).
POOLED_COLUMNS = ("ca", "tics", "weight", "traj", "time_ps", "iteration")


@dataclass
class KnownAnswer:
    """One engine's equilibrium as the study knows it: weights of the ground truth's frames (``shared``, aligned with
    its rows) and, for an engine that changes the equilibrium, its own sample's frames with their weights in
    ``weight`` (``own``; together they sum to 1)."""

    shared: np.ndarray
    own: Mapping | None = None

    def pooled(self, groundtruth: Mapping) -> dict:
        """The ground truth's and the own sample's frames as one frame set, weighted (``traj`` kept distinct).

        The ground truth's frames stay even where they carry no weight: uniform weights over the set mean the
        reference's own equilibrium to :func:`westbench.calibration.basis.engine_starts`, which an own sample is not.
        """
        from westbench.io.frames import concatenate

        columns = [k for k in POOLED_COLUMNS if k in groundtruth and k != "weight"]
        parts = [{**{k: np.asarray(groundtruth[k]) for k in columns}, "weight": np.asarray(self.shared)}]
        if self.own is not None and len(self.own["ca"]):
            parts.append({k: np.asarray(self.own[k]) for k in [*columns, "weight"]})
        return concatenate(parts)


def load_known_answer(reweighting_path, engine: str, sample_path=None) -> KnownAnswer:
    """``engine``'s :class:`KnownAnswer` from the files :func:`westbench.calibration.reweighting.write_reweighting`
    writes."""
    from westbench.errors import WestbenchError
    from westbench.io.frames import read_frames

    with np.load(reweighting_path) as data:
        if engine not in data.files:
            raise WestbenchError(f"{reweighting_path} has no weights of {engine!r}: rerun rule calibration_reweighting")
        shared = np.asarray(data[engine], dtype=np.float64)
    return KnownAnswer(shared, None if sample_path is None else read_frames(sample_path))


def difference_intervals(
    groundtruth: Mapping,
    engine_frames: Mapping,
    weights: np.ndarray,
    settings: Mapping,
    weighting: str = "we",
    own: Mapping | None = None,
) -> dict:
    """{(metric, distribution): (low, high)}: the 95 % interval of the engine's divergence minus the known answer's.

    Parameters
    ----------
    groundtruth : mapping
        The ground-truth frames (the frames contract, with ``tics``).
    engine_frames : mapping
        The engine's exported frames, scored as its metrics job scored them (``settings``: the suite settings
        its ``metrics.json`` records).
    weights : array
        The known answer's weight of every ground-truth frame, aligned with ``groundtruth``'s rows.
    weighting : str
        The engine's weighting (``we``, ``msm``, ``counts``).
    own : mapping, optional
        The known answer's own sample (frames with ``tics`` and its share of the weight in ``weight``): with
        ``weights``, the engine's equilibrium (:class:`~westbench.calibration.known_answer.KnownAnswer`).

    Both terms are computed on the suite's bootstrap grids; the difference's interval is shifted onto the
    difference of the grid estimates. Empty when either side has fewer than
    :data:`~westbench.metrics.intervals.MIN_UNITS` units, ``settings["bootstrap"]`` is below 2 or no engine frame is
    left to score.
    """
    from westbench.metrics.resampling import resampling_units
    from westbench.metrics.suite import MetricSuite, distributions

    groundtruth = {**dict(groundtruth), KNOWN_WEIGHT: np.asarray(weights, dtype=np.float64)}
    try:
        suite = MetricSuite(groundtruth, engine_frames, settings)
    except WestbenchError as exc:  # no frames left to score: the engine's metrics.json says why
        log.warning("no difference interval: %s", exc)
        return {}
    replicates = int(suite.settings["bootstrap"])
    if replicates < 2 or min(suite.n_groundtruth_units, suite.n_model_units) < MIN_UNITS:
        return {}
    binned = suite.binned
    known = binned.histograms(
        suite.reference,
        np.asarray(suite.groundtruth["tics"], dtype=np.float64)[:, :2],
        suite.groundtruth[KNOWN_WEIGHT],
        suite.groundtruth_units,
        suite.n_groundtruth_units,
    )
    engine = suite.model_histograms(suite.weights(weighting))
    n_units = [suite.n_groundtruth_units, suite.n_model_units]
    sampled = {}
    if own is not None and len(own["ca"]):
        units, _ = resampling_units(own)
        n_units.append(int(units.max()) + 1)
        if n_units[-1] < MIN_UNITS:
            return {}
        tics = np.asarray(own["tics"], dtype=np.float64)[:, :2]
        sampled = binned.histograms(distributions(own), tics, np.asarray(own["weight"]), units, n_units[-1])

    def difference(multiplicities):
        groundtruth_units, engine_units = multiplicities[:2]
        reference = {key: groundtruth_units @ value for key, value in binned.reference_histograms.items()}
        score = binned.divergences(reference, {key: engine_units @ value for key, value in engine.items()})
        answer = {key: groundtruth_units @ value for key, value in known.items()}
        for key, value in sampled.items():  # the known answer's own sample: its own units
            answer[key] = answer[key] + multiplicities[2] @ value
        return score - binned.divergences(reference, answer)

    result = unit_bootstrap(
        difference,
        n_units,
        replicates,
        derive_seed(int(suite.settings["seed"]), "known_answer_difference"),
    )
    return {key: (float(result.low[i]), float(result.high[i])) for i, key in enumerate(binned.keys)}
