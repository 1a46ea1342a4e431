"""KL(ground truth || model) by k nearest neighbours, for any multiplicities of independent units.

Why not histograms: the plug-in KL of 100-bin histograms is biased upward by about (bins - 1) / (2 n) per
side, and far more where the model leaves a ground-truth bin empty (its floor probability, ``kl_floor``, puts
about log(1 / floor) = 18 nats on each such bin). At a run's sizes the bias is the value: two samples whose
KL is 0.125 read 7.2 at 60 frames a side and 0.42 at 1,000; this estimator reads 0.125 and 0.107 (docs/scoring.md,
"KL estimators against known answers"; ``benchmarks/kl_validation.py``).

The estimator (Wang, Kulkarni and Verdu, IEEE Trans. Inf. Theory 55, 2392 (2009)) compares, at each
ground-truth point x, the distance r_P to its k-th nearest ground-truth neighbour with the distance r_Q to its
k-th nearest model point: with n and m points on a d-dimensional variable

    KL = d / n * sum_i log(r_Q(x_i) / r_P(x_i)) + log(m / (n - 1)),

whose bias vanishes as n and m grow for any k (the same k on both sides cancels the digamma terms). Here it is
written as densities, mass over volume, so that weights and resamples enter as masses:

    KL = sum_i a_i [log(M_P / A_i) - log(M_Q / B) + d log(r_Q(x_i) / r_P(x_i))] / sum_i a_i,

``r`` the radius of the smallest ball about x_i that holds at least k points' mass (k times the side's mean point
weight, sum w^2 / sum w: k points when the weights are equal), ``M`` the mass it holds, ``A_i`` and ``B`` the
total weights the balls are drawn from, ``a_i`` the query point's weight. With equal weights it is the estimator
above. Choices, each for a reason:

- **Mass, not counts.** The ball holds a mass, so mass moved away from x_i (a share of every weight, as far
  copies take it) leaves its radius and lowers its density: the KL never falls when mass leaves the ground
  truth's support; a weight scale changes nothing, and zero-weight frames are no points (the frames come
  canonical: copies of a conformation are one frame, :mod:`westbench.io.canonical`). Where the ball is smaller
  than ``eps`` (x_i sits in an atom: many equal values) the atom's mass is its mass, so two samples with all
  their mass on one value score 0.
- **Leave one unit out.** The ground truth's density at x_i comes from its *other* independent units (runs):
  frames of x_i's own run lie next to it in time, so its nearest neighbours would be its neighbours in time and
  the density overestimated (with 3 runs of 20 frames of lag-1 correlation 0.9, a pair whose KL is 0.125 reads
  0.27 with every frame and 0.11 from the other runs; docs/scoring.md). Where a resample holds no other unit, its
  own unit without x_i.
- **The mass a ball holds, not its target.** WE weights span orders of magnitude; a ball closes at a heavy
  walker holding far more than its target, and reading the target there biased an engine that samples the ground
  truth's own potential to 0.12 nats on TIC 0 against a noise floor of 0.03 (the calibration study's
  ``reference``); the mass it holds reads 0.001.
- **Circular distance** for periodic variables (dihedrals), Euclidean for TIC 0/1 after whitening by the
  ground truth's covariance (the KL is invariant to that linear map; the estimator is less biased on round
  data).
- **A floor at 0**: KL is not negative, and a sample scored against itself is 0 by definition (the formula
  would read below 0 there: every point's copy lies at distance 0 from it).
- **Query points**: the average over x_i runs over at most ``query_points`` ground-truth locations spread
  evenly over units and values (deterministic, no seed); the densities at them use every frame.

Resampling: :meth:`VariableKL.values` takes the bootstrap's unit multiplicities (each point's weight times its
unit's multiplicity), :meth:`VariableKL.split_values` the noise floor's splits of the ground truth's units.
Both read per-unit candidate lists (each unit's nearest locations to every query point), so a resample costs
no new neighbour search; the estimate itself (every multiplicity 1) is exact, a replicate's ball is what the
lists hold (each unit's 4 k nearest locations).

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> a, b = rng.normal(0, 1, 5000), rng.normal(0.5, 1, 5000)  # KL = 0.125 (sd of the estimate at 5,000: 0.01)
>>> round(kl_knn(a, b), 3)
0.13
>>> kl_knn(a, a)  # a sample scored against itself
0.0
"""

from __future__ import annotations

import dataclasses
import hashlib
import weakref
from dataclasses import dataclass

import numpy as np

from westbench.config import default
from westbench.metrics.ball_crossing import ROUNDING, crossing
from westbench.metrics.binning import ReferenceBins
from westbench.metrics.neighbour_lists import Candidates, Side

#: Neighbours per density (k). Larger is less noisy and smooths more; a WE run's frames come in clumps (a walker's
#: lineage, one weight per segment), and the ball must be wide against them: an engine sampling the ground truth's own
#: potential read up to 0.04 nats with k = 4 or 8 (above its noise floor on bonds), within noise on every
#: distribution with 16 (the calibration study's ``reference``; docs/scoring.md).
NEIGHBOURS = 16
#: Ground-truth locations the KL is averaged over at most (the densities use every frame): the time of every
#: bootstrap replicate grows with it; the average's own noise is about 0.7 / sqrt(QUERY_POINTS) nats.
QUERY_POINTS = 1000
#: Distances below this share of the ground truth's spread are one location (float32 data resolve ~1e-7).
EPS_SHARE = 1e-9
#: Each unit's nearest locations kept per query point: this many times k. A bootstrap replicate's ball is what the
#: lists hold (only the estimate lists more where they fall short), and WE weights span orders of magnitude: a ball
#: of k mean weights can need many of a unit's light frames. With 1 x k the replicates of the calibration study's
#: contacts_80 (4 model units) read 0.06 to 0.17 nats above the estimate and the intervals collapsed; with 4 x k,
#: 0.003 to 0.015 (2 x k: 0.008 to 0.019). Its cost: the calibration study's cg_fulltrained metrics job took 218 s
#: and 5.5 GB with 4 x k, 90 s and 2.7 GB with 2 x k, whose KL intervals came out 1.1 to 9 times wider and one
#: verdict flipped (dihedrals: separated), the same estimates (default run, seed 2024, 2 shared cores). Since the
#: lists hold 16 bytes a candidate (was 32) and the few-unit and unreachable shortcuts
#: (:func:`westbench.metrics.ball_crossing.crossing`), 4 x k costs that job 28-43 s and 1.4-1.5 GB (the same
#: metrics.json).
LIST = 4
#: Replicates evaluated at once (memory: WIDTHS[0] x query points x this many floats per array).
CHUNK = 32
#: Chunks of ground-truth multiplicities whose densities are kept (a bootstrap's: about 220 replicates / CHUNK).
CACHED = 32


class VariableKL:
    """KL(ground truth || model) of one variable for any unit multiplicities (module text).

    Parameters
    ----------
    reference : Side
        The ground truth's points.
    k, query_points, eps
        Neighbours, the most query locations, and the distance below which points are one location.
    log_floor : float
        The log of the least model density read at a ground-truth point (``kl_floor`` spread over the support's
        volume: the nearest-neighbour form of the histograms' floor), so that a model with no mass near the
        ground truth reads a large finite KL, not infinity.
    diameter : float
        The largest distance within the support: the radius of a ball where a side holds less mass than a ball.
    """

    def __init__(
        self,
        reference: Side,
        k: int = NEIGHBOURS,
        query_points: int = QUERY_POINTS,
        eps: float = 0.0,
        log_floor: float = -np.inf,
        diameter: float = np.inf,
    ):
        self.reference, self.k, self.eps, self.log_floor = reference, int(k), float(eps), float(log_floor)
        self.diameter = float(diameter)
        self.count = LIST * self.k
        n = len(reference.weights)
        chosen = np.round(np.linspace(0, n - 1, min(n, int(query_points)))).astype(np.int64) if n else []
        self.query = np.unique(np.asarray(chosen, dtype=np.int64))
        self.query_units = reference.units[self.query]
        self.query_values = reference.values[self.query]
        self.query_weights = reference.weights[self.query]
        self.one_unit = reference.n_units < 2
        self.others = self._reference_candidates(np.arange(len(self.query)), self.count)
        self._own = None
        self._reference_cache: dict = {}
        # Per model side alive (a suite's current weighting): its candidates, and whether it is the ground truth.
        self._models: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    @property
    def own(self) -> Candidates:
        """Where a resample holds no other unit: the query point's own unit without it (listed when first needed)."""
        if self._own is None:
            self._own = self._reference_candidates(np.arange(len(self.query)), self.count, own=True)
        return self._own

    def _reference_candidates(self, rows: np.ndarray, count: int, own: bool = False) -> Candidates:
        """The ground truth's candidates for the query points ``rows``: from the other units (each point's own
        unit left out), from its own unit without the point (``own``), or, with a single unit, every other point."""
        values, units, query = self.query_values[rows], self.query_units[rows], self.query[rows]
        if self.one_unit:
            return self.reference.candidates(values, count, self.eps, exclude=query)
        if own:
            return self.reference.candidates(values, count, self.eps, exclude=query, only=units)
        return self.reference.candidates(values, count, self.eps, skip=units)

    def _model(self, model: Side) -> tuple[Candidates, bool]:
        """The model's candidates for the query points, and whether it is the ground truth itself (cached)."""
        if model not in self._models:
            self._models[model] = (
                model.candidates(self.query_values, self.count, self.eps),
                model.same_as(self.reference),
            )
        return self._models[model]

    def _ball(self, cands, side, multiplicities, refine, available) -> tuple[np.ndarray, np.ndarray]:
        """Radius and mass of each query point's ball on ``side``; exact where every multiplicity is 1 (``refine``
        (rows, count) -> candidates re-lists the query points whose lists fell short, with more locations).

        Where the side holds less mass in the support than a ball (``available``, per replicate and query point,
        below the target) the ball spans the support (its ``diameter``; ``eps`` where all of it is one atom at the
        point) and holds all of it: no ball could be smaller, so a model that loses mass from the support never
        gains density there.
        """
        target = side.ball_mass(multiplicities, self.k)
        whole = np.all(multiplicities == 1, axis=1)
        radius, mass, short, atom = crossing(cands, multiplicities, target, self.eps, check=bool(whole.any()))
        unreachable = np.broadcast_to(available, radius.shape) < target[:, None] * (1 - ROUNDING)
        short &= ~unreachable
        count = self.count
        largest = max((s.stop - s.start for s in side.slices), default=0)
        while whole.any() and (short[whole]).any() and count < largest:
            count *= 4
            rows = np.flatnonzero(short[whole].any(axis=0))
            more = refine(rows, count)
            r, m, s, _ = crossing(more, multiplicities[whole], target[whole], self.eps, check=True)
            index = np.ix_(np.flatnonzero(whole), rows)
            radius[index], mass[index], short[index] = r, m, s & ~unreachable[index]
        if not unreachable.any():
            return radius, mass
        available = np.broadcast_to(available, radius.shape)
        if atom is None:
            atom = multiplicities @ cands.atom.T
        spans = np.where(atom >= available * (1 - ROUNDING), self.eps, max(self.diameter, self.eps))  # an atom: eps
        return np.where(unreachable, spans, radius), np.where(unreachable, available, mass)

    def log_reference(self, multiplicities: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per replicate and query point: the log of the ground truth's density there up to the volume's constant
        (log M_P - log A_i - d log r_P), and the query points' weights."""
        ref = self.reference
        mult = np.asarray(multiplicities, dtype=np.float64)
        own_share = mult[:, self.query_units]
        query_weights = own_share * self.query_weights[None, :]
        total = mult @ ref.unit_weights
        if self.one_unit:
            available = total[:, None] - query_weights
        else:
            own_total = own_share * ref.unit_weights[self.query_units][None, :]
            available = total[:, None] - own_total
        relist = lambda rows, count: self._reference_candidates(rows, count)  # noqa: E731
        radius, mass = self._ball(self.others, ref, mult, relist, available)
        if not self.one_unit:
            alone = available <= 0
            if alone.any():
                own_radius, own_mass = self._ball(
                    self.own,
                    ref,
                    mult,
                    lambda rows, count: self._reference_candidates(rows, count, own=True),
                    own_total - query_weights,
                )
                radius, mass = np.where(alone, own_radius, radius), np.where(alone, own_mass, mass)
                available = np.where(alone, own_total - query_weights, available)
        with np.errstate(divide="ignore", invalid="ignore"):
            log_p = np.log(mass) - np.log(available) - ref.dim * np.log(radius)
        return np.where(available > 0, log_p, np.nan), query_weights  # NaN: no other ground-truth mass

    def _cached_reference(self, multiplicities: np.ndarray):
        """:meth:`log_reference`, kept for the last :data:`CACHED` chunks: every weighting's bootstrap draws the same
        ground-truth multiplicities (one seed), so the ground truth's side is computed once."""
        key = multiplicities.tobytes() + bytes(str(multiplicities.shape), "ascii")
        if key not in self._reference_cache:
            if len(self._reference_cache) >= CACHED:
                self._reference_cache.pop(next(iter(self._reference_cache)))
            self._reference_cache[key] = self.log_reference(multiplicities)
        return self._reference_cache[key]

    def log_model(self, cands: Candidates, side: Side, multiplicities: np.ndarray, refine=None) -> np.ndarray:
        """Per replicate and query point: log M_Q - log B - d log r_Q."""
        mult = np.asarray(multiplicities, dtype=np.float64)
        if refine is None:
            refine = lambda rows, count: side.candidates(self.query_values[rows], count, self.eps)  # noqa: E731
        radius, mass = self._ball(cands, side, mult, refine, (mult @ side.unit_weights)[:, None])
        total = (mult @ side.unit_totals)[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            log_q = np.maximum(np.log(mass) - np.log(total) - side.dim * np.log(radius), self.log_floor)
        return np.where(total > 0, log_q, np.nan)  # NaN: a resample without model mass

    @staticmethod
    def combine(log_p: np.ndarray, log_q: np.ndarray, query_weights: np.ndarray, floored=None) -> np.ndarray:
        """KL per replicate: the query-weighted mean of log p - log q over the query points where both are
        defined, floored at 0; NaN where no query point carries weight or the model has no mass. With ``floored``
        ((batch, Q) booleans), the share of that mean from those query points instead."""
        with np.errstate(invalid="ignore"):
            terms = log_p - log_q
        used = (query_weights > 0) & ~np.isnan(terms)
        weights = np.where(used, query_weights, 0.0)
        total = weights.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            value = np.sum(np.where(used, weights * terms, 0.0), axis=1) / total
            if floored is not None:
                part = np.sum(np.where(used & floored, weights * terms, 0.0), axis=1) / total
                return np.where(value > 0, part / value, np.nan)
        model_mass = ~np.all(np.isnan(log_q), axis=1)
        return np.where((total > 0) & model_mass & ~np.isnan(value), np.maximum(value, 0.0), np.nan)

    def floored_share(self, model: Side) -> float:
        """The share of the estimate (every multiplicity 1) that comes from ground-truth points where the model's
        density is read at the floor (``log_floor``): above one half the value measures the floor."""
        cands, _ = self._model(model)
        ones_p, ones_q = np.ones((1, self.reference.n_units)), np.ones((1, model.n_units))
        log_p, query_weights = self.log_reference(ones_p)
        log_q = self.log_model(cands, model, ones_q)
        return float(self.combine(log_p, log_q, query_weights, floored=log_q <= self.log_floor)[0])

    def values(self, model: Side, reference_multiplicities, model_multiplicities) -> np.ndarray:
        """KL per replicate ((batch,)) for (batch, units) multiplicities of the ground truth and of the model."""
        cands, same = self._model(model)
        reference_multiplicities = np.asarray(reference_multiplicities, dtype=np.float64)
        model_multiplicities = np.asarray(model_multiplicities, dtype=np.float64)
        out = []
        for start in range(0, len(reference_multiplicities), CHUNK):
            log_p, query_weights = self._cached_reference(reference_multiplicities[start : start + CHUNK])
            log_q = self.log_model(cands, model, model_multiplicities[start : start + CHUNK])
            out.append(self.combine(log_p, log_q, query_weights))
        value = np.concatenate(out) if out else np.zeros(0)
        if same:  # the ground truth against itself: 0 where neither side is resampled
            whole = np.all(reference_multiplicities == 1, axis=1) & np.all(model_multiplicities == 1, axis=1)
            value = np.where(whole, 0.0, value)
        return value

    def reweighted_split(self, rest: np.ndarray, weights: np.ndarray) -> float:
        """KL of the ground truth's ``rest`` units ((n_units,) multiplicities) against its own locations under
        ``weights`` ((L,), 0 outside the pseudo-model; :meth:`Side.reweighted`): one noise-floor split whose
        pseudo-model is reweighted, read from the other units' lists as :meth:`split_values` reads them."""
        side = self.reference.reweighted(weights)
        rest = np.asarray(rest, dtype=np.float64)[None, :]
        log_p, query_weights = self.log_reference(rest)
        cands = self.reweighted_others(side, np.flatnonzero(rest[0] < 1))
        log_q = self.log_model(cands, side, 1.0 - rest)
        return float(self.combine(log_p, log_q, query_weights)[0])

    def reweighted_others(self, side: Side, units: np.ndarray | None = None) -> Candidates:
        """The other units' lists (:attr:`others`) read under a reweighted side's weights: the listed weight,
        farthest weighted location and atom of each of ``units`` (all when None; the others' are left at 0 and -inf:
        only the units a replicate holds are read) recomputed, as a search of ``side`` would give them."""
        others = self.others
        q, n_units, count = others.positions.shape
        units = np.arange(n_units) if units is None else np.asarray(units, dtype=np.int64)
        columns = others.positions[:, units, :].reshape(q, -1)
        distance = np.take_along_axis(others.distance, columns, 1).reshape(q, len(units), count)
        padded_units, weights = side.padded
        w = weights[np.take_along_axis(others.location, columns, 1)].reshape(q, len(units), count)
        listed, farthest, atom = np.zeros((q, n_units)), np.full((q, n_units), -np.inf), np.zeros((q, n_units))
        listed[:, units] = w.sum(axis=2)
        farthest[:, units] = np.max(np.where(w > 0, distance, -np.inf), axis=2, initial=-np.inf)
        for u in units:
            part = side.slices[u]
            if part.stop > part.start:
                atom[:, u] = side._atom(u, side.values[part], self.query_values, self.eps, part.start, None)
        own = np.arange(n_units)[None, :] == self.query_units[:, None]
        return dataclasses.replace(
            others,
            units=padded_units,
            weights=weights,
            listed=listed,
            farthest=farthest,
            atom=np.where(own, 0.0, atom),
        )

    def split_values(self, rest: np.ndarray, subsets: np.ndarray) -> np.ndarray:
        """KL of the ground truth's ``rest`` units against its ``subsets`` units ((n_splits, n_units) each): the
        noise floor's splits. A split's query points lie in the rest, so its pseudo-model never holds their own
        unit, and the other units' candidates serve it."""
        rest, subsets = np.asarray(rest, dtype=np.float64), np.asarray(subsets, dtype=np.float64)
        out = []
        for start in range(0, len(rest), CHUNK):
            log_p, query_weights = self.log_reference(rest[start : start + CHUNK])
            log_q = self.log_model(self.others, self.reference, subsets[start : start + CHUNK])
            out.append(self.combine(log_p, log_q, query_weights))
        return np.concatenate(out) if out else np.zeros(0)


def spread(values: np.ndarray) -> float:
    """A positive scale of values: their range, or their magnitude when constant, or 1."""
    values = np.asarray(values, dtype=np.float64)
    values = values[np.isfinite(values)]
    if not len(values):
        return 1.0
    width = float(np.max(values) - np.min(values))
    return width if width > 0 else max(float(np.max(np.abs(values))), 1.0)


def whitening(points: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """A (d, d) matrix mapping the weighted covariance of ``points`` to the identity (per-axis scaling where it is
    singular, 1 on an axis that does not vary).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = rng.multivariate_normal([0, 0], [[4.0, 1.0], [1.0, 1.0]], 50_000)
    >>> np.round(np.cov((x @ whitening(x, np.ones(len(x)))).T), 2).tolist()
    [[1.0, -0.0], [-0.0, 1.0]]
    """
    points = np.asarray(points, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    w = w / w.sum()
    centred = points - w @ points
    covariance = (centred * w[:, None]).T @ centred
    # Spreads below this are no spread (a constant axis at any magnitude, float noise).
    tolerance = 1e-12 * max(1.0, float(np.max(np.abs(points))) if points.size else 1.0)
    if np.all(np.isfinite(covariance)):
        values, vectors = np.linalg.eigh(covariance)
        if np.sqrt(max(values.min(), 0.0)) > tolerance:
            return vectors / np.sqrt(values)
    scale = np.sqrt(np.abs(np.diag(covariance)))
    good = np.isfinite(scale) & (scale > tolerance)
    return np.diag(np.where(good, 1.0 / np.where(good, scale, 1.0), 1.0))


def kl_knn(
    reference,
    model,
    reference_weights=None,
    model_weights=None,
    k: int = NEIGHBOURS,
    period: float | None = None,
    reference_units=None,
    query_points: int | None = None,
    floor: float = default("metrics.kl_floor"),
) -> float:
    """KL(reference || model) of two weighted samples ((n,) or (n, d)) by k nearest neighbours (module text).

    ``period``: the period of a circular 1-D variable; ``reference_units``: the reference's independent units (one
    unit, leaving each point out of its own density, when not given); ``query_points``: the most reference
    locations averaged over (all when not given); ``floor``: the least model mass read near a reference point, as
    a share of the support's volume (:class:`VariableKL`'s ``log_floor``).

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> round(kl_knn(rng.normal(size=(4000, 2)), rng.normal(size=(4000, 2)) + [0.5, 0.0]), 3)  # 0.125, sd 0.01
    0.111
    """
    reference, model = np.asarray(reference, dtype=np.float64), np.asarray(model, dtype=np.float64)
    n, m = len(reference), len(model)
    a = np.ones(n) if reference_weights is None else np.asarray(reference_weights, dtype=np.float64)
    b = np.ones(m) if model_weights is None else np.asarray(model_weights, dtype=np.float64)
    if reference_units is None:
        units = np.zeros(n, dtype=np.int64)
    else:
        units = np.unique(np.asarray(reference_units), return_inverse=True)[1].ravel()
    n_units = int(units.max()) + 1 if n else 1
    both = prepared(reference, model, a, period)
    estimator = both.estimator(
        Side.build(both.reference, a, units, n_units, period), k, n if query_points is None else query_points, floor
    )
    side = Side.build(both.model, b, np.zeros(m, dtype=np.int64), 1, period, both.inside)
    return float(estimator.values(side, np.ones((1, n_units)), np.ones((1, 1)))[0])


@dataclass
class Prepared:
    """Both samples as the estimator reads them (:func:`prepared`)."""

    reference: np.ndarray
    model: np.ndarray
    eps: float  # distances below it: one location
    inside: np.ndarray  # (m,) whether each model point lies in the ground truth's support
    log_volume: float  # the log of the support's volume, in the estimator's coordinates
    diameter: float  # the largest distance within the support, in the estimator's coordinates

    def estimator(self, reference_side: "Side", k: int, query_points: int, floor: float) -> VariableKL:
        """The estimator over ``reference_side`` (this reference's points) with these samples' constants: the one
        a live suite already holds for the same ground truth and constants (the calibration study scores every
        engine and its known answer against one ground truth: its lists and densities are computed once)."""
        constants = (int(k), int(query_points), self.eps, float(np.log(floor)) - self.log_volume, self.diameter)
        digest = hashlib.blake2b(repr((constants, reference_side.n_units, reference_side.period)).encode())
        for array in (reference_side.values, reference_side.weights, reference_side.units, reference_side.unit_totals):
            digest.update(np.ascontiguousarray(array).tobytes())
        key = digest.hexdigest()
        estimator = _LIVE_ESTIMATORS.get(key)
        if estimator is None:
            estimator = VariableKL(reference_side, *constants)
            _LIVE_ESTIMATORS[key] = estimator
        return estimator


#: The estimators some suite still holds, by their ground truth and constants (:meth:`Prepared.estimator`).
_LIVE_ESTIMATORS: "weakref.WeakValueDictionary[str, VariableKL]" = weakref.WeakValueDictionary()


def prepared(reference, model, reference_weights, period: float | None = None) -> Prepared:
    """Both samples as the estimator reads them: wrapped into [0, period) when periodic (the whole circle the
    support); else whitened by the reference's covariance when 2-D, the support the reference's range on each axis
    padded as the KL bins pad it (:class:`westbench.metrics.binning.ReferenceBins`)."""
    reference, model = np.asarray(reference, dtype=np.float64), np.asarray(model, dtype=np.float64)
    if period is not None:
        inside = np.ones(len(model), dtype=bool)
        wrapped = np.mod(reference, period), np.mod(model, period)
        return Prepared(*wrapped, EPS_SHARE * period, inside, float(np.log(period)), period / 2)
    ref2, model2 = (reference[:, None], model[:, None]) if reference.ndim == 1 else (reference, model)
    inside = np.ones(len(model), dtype=bool)
    box = []
    for d in range(ref2.shape[1]):
        edges = ReferenceBins.from_reference(ref2[:, d], 1).edges
        inside &= (model2[:, d] >= edges[0]) & (model2[:, d] <= edges[-1])
        box.append((edges[0], edges[-1]))
    log_volume = float(sum(np.log(high - low) for low, high in box))
    if ref2.shape[1] > 1:
        transform = whitening(ref2, reference_weights)
        reference, model = ref2 @ transform, model2 @ transform
        corners = np.array(np.meshgrid(*box)).reshape(len(box), -1).T @ transform
        diameter = float(np.max(np.linalg.norm(corners[:, None, :] - corners[None, :, :], axis=-1)))
        eps = EPS_SHARE * max(spread(reference[:, d]) for d in range(reference.shape[1]))
        log_volume += float(np.log(abs(np.linalg.det(transform))))
        return Prepared(reference, model, eps, inside, log_volume, diameter)
    width = box[0][1] - box[0][0]
    return Prepared(reference, model, EPS_SHARE * spread(reference), inside, log_volume, float(width))
