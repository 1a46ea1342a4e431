"""Does an engine's score agree with its known answer? The answer as the engine's sample would show it, and an interval
of their difference with both sides' noise in it.

The known answer of a calibration engine is its equilibrium's divergence from the ground truth: an engine that
changes the equilibrium has its own unbiased sample (:class:`KnownAnswer` ``own``), the others the ground truth
reweighted to their equilibrium (:mod:`westbench.calibration.reweighting`; uniform weights for the reference's own
equilibrium: the null and the engines that change only their dynamics). Two things stand between that answer and
an engine's score, and both are measured (``benchmarks/calibration_lean.py``, docs/calibration.md "Where the lean
came from"):

- **Noise on both sides.** The answer comes from finite samples too (the ground truth it shares with the score, its
  own sample's runs), so the question is whether ``score - known answer`` is 0 within the noise of both: a
  bootstrap that resamples the ground truth's units once for both terms (their shared noise cancels as it should),
  the engine's units for the score and the own sample's runs as a third set of units for the answer, with the
  suite's BCa interval widened for few units (:func:`westbench.metrics.intervals.unit_bootstrap`). Every statistic
  is the suite's own (:meth:`westbench.metrics.suite.MetricSuite.statistic`: its KL estimator, its grids), on both
  sides.
- **Finite-sample excess.** A divergence estimated from a finite sample lies above the divergence of its
  distribution (Jensen: W1 and KL are convex), by more the smaller the sample. An engine's score carries the excess
  of its own sample; a known answer from 6,400 frames (or 0, the reference against itself) carries less. Compare like
  with like: :func:`answer_at_size` is the answer as a sample of the engine's size shows it, the mean over seeded
  draws of as many of the own sample's runs as make the engine's effective frames (Kish), or for the reference's
  equilibrium the noise floor's median (the ground truth against itself at the engine's effective frames, which
  the suite computes anyway). ``covers`` then asks whether score minus that answer holds 0.

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
>>> settings = {"bootstrap": 200, "seed": 3, "kl_estimator": "histogram"}  # the W1 is read here
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

#: The frame columns a known answer's own sample shares with the ground truth (the pooled frames of both).
POOLED_COLUMNS = ("ca", "tics", "weight", "traj", "time_ps", "iteration")
#: Seeded draws of an own sample's runs that make a known answer at an engine's size (:func:`answer_at_size`): the
#: mean's Monte Carlo error is then a small share of the draws' spread.
SIZE_DRAWS = 32
#: The smallest positive weight: a ground-truth frame that a reweighted answer gives no weight keeps its place, its
#: run and so the answer's units (the ground truth's own), at no weight a divergence can tell from 0.
_TINY = np.finfo(np.float64).tiny


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

    @property
    def sampled(self) -> bool:
        """Whether the answer rests on its own sample (an engine that changes the equilibrium)."""
        return self.own is not None and len(self.own["ca"]) > 0

    def is_reference(self) -> bool:
        """Whether the answer is the reference's own equilibrium (uniform weights over the ground truth, no sample)."""
        shared = np.asarray(self.shared, dtype=np.float64)
        return not self.sampled and bool(np.allclose(shared, shared.mean(), rtol=1e-9, atol=0))

    def frames(self, groundtruth: Mapping) -> dict:
        """The answer as a model's frames: its own sample (its runs its units), or the ground truth with the answer's
        weights (a frame of no weight lifted to the smallest positive float, so the answer's units are the ground
        truth's own and resample with them)."""
        if self.sampled:
            return {k: np.asarray(v) for k, v in self.own.items() if k in POOLED_COLUMNS}
        columns = [k for k in POOLED_COLUMNS if k in groundtruth and k != "weight"]
        weight = np.fmax(np.asarray(self.shared, dtype=np.float64), _TINY)
        return {**{k: np.asarray(groundtruth[k]) for k in columns}, "weight": weight}

    def suite(self, groundtruth: Mapping, settings: Mapping | None = None):
        """The metric suite of the answer's frames against the ground truth (every frame kept: no iteration of an
        equilibrium sample is left out)."""
        from westbench.metrics.suite import MetricSuite

        return MetricSuite(groundtruth, self.frames(groundtruth), {**dict(settings or {}), "discard_iterations": 0})


def load_known_answer(reweighting_path, engine: str, sample_path=None) -> KnownAnswer:
    """``engine``'s :class:`KnownAnswer` from the files :func:`westbench.calibration.reweighting.write_reweighting`
    writes."""
    from westbench.io.frames import read_frames

    with np.load(reweighting_path) as data:
        if engine not in data.files:
            raise WestbenchError(f"{reweighting_path} has no weights of {engine!r}: rerun rule calibration_reweighting")
        shared = np.asarray(data[engine], dtype=np.float64)
    return KnownAnswer(shared, None if sample_path is None else read_frames(sample_path))


def _keyed(suite, values) -> dict:
    return {key: float(value) for key, value in zip(suite.binned.keys, values)}


def answer_at_size(suite, effective_frames: float, seed: int, draws: int = SIZE_DRAWS) -> tuple[dict, dict]:
    """The known answer as a sample of ``effective_frames`` (an engine's Kish effective frames) shows it:
    {(metric, distribution): value}, and what was drawn (``units``, ``of_units``, ``draws``).

    ``suite``: the answer's own sample against the ground truth (:meth:`KnownAnswer.suite`). ``draws`` seeded draws
    of as many of its independent units (runs, or the suite's groups of runs) as hold about that many frames, without
    replacement, each scored by the suite's bootstrap statistic (one batch, no new neighbour search); the answer at
    that size is the exact answer plus the draws' mean excess over the whole sample on that statistic. Where the
    engine's effective frames reach the sample's, no draw is smaller than the sample: the answer itself (its excess
    at least the engine's).

    Examples
    --------
    >>> from westbench.metrics.suite import MetricSuite
    >>> r = np.random.default_rng(0)
    >>> def runs(n, shift):
    ...     return {"ca": np.cumsum(r.normal(0, 0.2, (n * 20, 5, 3)), axis=1), "weight": np.ones(n * 20),
    ...             "tics": r.normal(size=(n * 20, 2)) + [shift, 0], "traj": np.repeat(np.arange(n), 20),
    ...             "time_ps": np.tile(np.arange(20.0), n)}
    >>> suite = MetricSuite(runs(40, 0.0), runs(30, 0.0), {"kl_estimator": "histogram"})
    >>> full = _keyed(suite, suite.estimates(suite.weights("we")))
    >>> small, drawn = answer_at_size(suite, effective_frames=100.0, seed=1)
    >>> drawn["units"], drawn["of_units"]
    (5, 30)
    >>> bool(small[("w1", "tic0")] > full[("w1", "tic0")])  # five runs carry more excess than thirty
    True
    """
    n = suite.n_model_units
    weights = suite.weights("we")
    exact = suite.estimates(weights)
    k = int(min(n, max(1, round(n * float(effective_frames) / max(len(suite.model_units), 1)))))
    drawn = {"units": k, "of_units": int(n), "draws": 0 if k >= n else int(draws)}
    if k >= n:
        return _keyed(suite, exact), drawn
    rng = np.random.default_rng(seed)
    chosen = np.zeros((draws, n))
    for row in chosen:
        row[rng.choice(n, size=k, replace=False)] = 1.0
    statistic = suite.statistic(weights, suite.model_histograms(weights))
    groundtruth = suite.n_groundtruth_units
    whole = np.asarray(statistic([np.ones((1, groundtruth)), np.ones((1, n))]), dtype=np.float64)[:, 0]
    values = np.asarray(statistic([np.ones((draws, groundtruth)), chosen]), dtype=np.float64)
    return _keyed(suite, exact + np.nanmean(values, axis=1) - whole), drawn


def difference_intervals(
    groundtruth: Mapping,
    engine_frames: Mapping,
    weights: np.ndarray,
    settings: Mapping,
    weighting: str = "we",
    own: Mapping | None = None,
    answer=None,
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
    answer : MetricSuite, optional
        The answer's suite (:meth:`KnownAnswer.suite`) where the caller has made it already.

    Both terms are the suite's statistics (:meth:`~westbench.metrics.suite.MetricSuite.statistic`, its KL estimator
    included), the answer's from its own suite (:meth:`KnownAnswer.suite`) whose ground-truth units are the score's;
    the interval is shifted onto the difference of the exact estimates. Empty when either side has fewer than
    :data:`~westbench.metrics.intervals.MIN_UNITS` units, ``settings["bootstrap"]`` is below 2 or no engine frame is
    left to score.
    """
    from westbench.metrics.suite import MetricSuite

    known = KnownAnswer(np.asarray(weights, dtype=np.float64), own)
    try:
        suite = MetricSuite(groundtruth, engine_frames, settings)
    except WestbenchError as exc:  # no frames left to score: the engine's metrics.json says why
        log.warning("no difference interval: %s", exc)
        return {}
    replicates = int(suite.settings.bootstrap)
    if replicates < 2 or min(suite.n_groundtruth_units, suite.n_model_units) < MIN_UNITS:
        return {}
    answer = known.suite(groundtruth, settings) if answer is None else answer
    if not np.array_equal(answer.groundtruth_units, suite.groundtruth_units):
        raise WestbenchError("the known answer's ground-truth units differ from the score's: report this as a bug")
    engine_weights, answer_weights = suite.weights(weighting), answer.weights("we")
    score = suite.statistic(engine_weights, suite.model_histograms(engine_weights))
    reference = known.is_reference()  # the ground truth against itself: 0 in every resample
    truth = None if reference else answer.statistic(answer_weights, answer.model_histograms(answer_weights))
    n_units = [suite.n_groundtruth_units, suite.n_model_units]
    if known.sampled:
        n_units.append(answer.n_model_units)
        if n_units[-1] < MIN_UNITS:
            return {}
    elif not reference and answer.n_model_units != suite.n_groundtruth_units:
        raise WestbenchError("a reweighted known answer lost ground-truth runs: report this as a bug")

    def difference(multiplicities):
        value = np.asarray(score(multiplicities[:2]), dtype=np.float64)
        if truth is None:
            return value
        resampled = multiplicities[2] if known.sampled else multiplicities[0]
        return value - np.asarray(truth([multiplicities[0], resampled]), dtype=np.float64)

    result = unit_bootstrap(
        difference,
        n_units,
        replicates,
        derive_seed(int(suite.settings.seed), "known_answer_difference"),
    )
    exact = suite.estimates(engine_weights)
    if not reference:
        exact = exact - answer.estimates(answer_weights)
    shift = np.where(np.isfinite(exact) & np.isfinite(result.estimate), exact - result.estimate, 0.0)
    return {
        key: (float(result.low[i] + shift[i]), float(result.high[i] + shift[i]))
        for i, key in enumerate(suite.binned.keys)
    }
