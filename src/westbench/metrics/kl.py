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
from typing import Mapping

import numpy as np

from westbench.config import default
from westbench.errors import WestbenchError
from westbench.metrics.binning import ReferenceBins

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
#: lists hold 16 bytes a candidate (was 32) and the few-unit and unreachable shortcuts (:func:`crossing`), 4 x k
#: costs that job 28-43 s and 1.4-1.5 GB (the same metrics.json).
LIST = 4
#: Candidates a replicate reads after merging the units' lists: the first of these, then the second where they
#: fall short, then all.
WIDTHS = (128, 384)
#: Replicates evaluated at once (memory: WIDTHS[0] x query points x this many floats per array).
CHUNK = 32
#: (pair, candidate) cells a long list's crossing reads at once (memory: 8 bytes each, a few arrays).
PAIRS = 1 << 21
#: A replicate whose units' lists fill at most 1 / FEW_UNITS of the merged list reads theirs alone.
FEW_UNITS = 4
#: Chunks of ground-truth multiplicities whose densities are kept (a bootstrap's: about 220 replicates / CHUNK).
CACHED = 32
#: Relative rounding allowed when a ball's mass is compared with its target.
ROUNDING = 1e-9


@dataclass
class Candidates:
    """Per query point, the nearest locations of every unit, merged and sorted by distance.

    ``distance`` (Q, C) ascending (inf: padding), ``location`` (Q, C) an index into the side's locations (its
    ``pad``: padding), ``atom`` (Q, U) each unit's weight within ``eps`` of the query point, ``reach`` (Q, U) the
    distance of each unit's farthest listed location where the unit has more (inf where its list holds all of
    them): a ball wider than that may hold more of the unit's mass than listed. ``units`` and ``weights`` (L + 1,):
    each location's unit and weight, padding last (weight 0); a candidate's are read through its location, so the
    lists hold 16 bytes a candidate with ``positions`` (the calibration study's ground truth: 100 units x 64
    locations x 1,000 query points per distribution). ``listed`` (Q, U): each unit's listed weight; ``farthest``
    (Q, U): the distance of its farthest listed location with weight (-inf: none); together they settle a ball the
    lists cannot fill without reading the lists (:func:`crossing`). ``positions`` (Q, U, n): the columns of each
    unit's n listed candidates, so that a replicate holding few units reads only theirs.
    """

    distance: np.ndarray
    location: np.ndarray
    atom: np.ndarray
    reach: np.ndarray
    units: np.ndarray
    weights: np.ndarray
    listed: np.ndarray
    farthest: np.ndarray
    positions: np.ndarray | None = None  # (Q, U, per unit) each unit's listed candidates' columns (None: unknown)

    def unit(self, rows=slice(None), width: int | None = None) -> np.ndarray:
        """The unit of each candidate of ``rows`` (the first ``width``)."""
        return self.units[self.location[rows, :width]]

    def weight(self, rows=slice(None), width: int | None = None) -> np.ndarray:
        """The location weight of each candidate of ``rows`` (the first ``width``; 0: padding)."""
        return self.weights[self.location[rows, :width]]


@dataclass
class Layout:
    """The points of one sample on one variable sorted once by unit, then value (its locations), and each point's
    location (-1: outside the support). :meth:`side` weighs them (once per weighting).

    :meth:`of` takes ``points`` (n,) or (n, d) values (whitened, or wrapped into [0, period)), ``units`` (n,), each
    point's unit (0..n_units-1), ``inside`` (n,), whether each point lies in the ground truth's support (all when
    not given: a point outside is no location, only weight in its unit's total), and ``per_frame``: points come
    ``per_frame`` to a frame, frame by frame (a frame's bonds), so :meth:`side` takes one weight per frame.
    """

    values: np.ndarray  # (L, d)
    units: np.ndarray  # (L,)
    frame: np.ndarray  # (L,) the frame of each location
    frame_units: np.ndarray  # (n_frames,)
    per_frame: int
    n_units: int
    period: float | None = None

    @classmethod
    def of(
        cls, points, units, n_units: int, period: float | None = None, inside=None, order=None, per_frame: int = 1
    ) -> "Layout":
        """``order``: the points' ascending order, when known (1-D: the W1's sort, which the suite has made)."""
        points = np.asarray(points, dtype=np.float64)
        keys = points[:, None] if points.ndim == 1 else points
        units = np.asarray(units, dtype=np.int64)
        if order is None:
            order = np.lexsort(tuple(keys[:, d] for d in range(keys.shape[1] - 1, -1, -1)))
        order = np.asarray(order, dtype=np.int64)
        if inside is not None:
            order = order[np.asarray(inside)[order]]
        small = units.astype(np.int16) if n_units < 2**15 else units  # a radix sort
        order = order[np.argsort(small[order], kind="stable")]
        per_frame = int(per_frame)
        return cls(keys[order], units[order], order // per_frame, units[::per_frame], per_frame, int(n_units), period)

    def side(self, weights, basis=None) -> "Side":
        """The locations weighted by their frames' ``weights`` (weightless ones left out), and each unit's total
        weight, the points outside the support included. ``basis`` (n_frames,) booleans: the frames whose mean
        weight sets a ball's mass (:meth:`Side.ball_mass`; the locations' when not given)."""
        weights = np.asarray(weights, dtype=np.float64)
        totals = np.bincount(self.frame_units, weights, minlength=self.n_units) * self.per_frame
        mass = weights[self.frame]
        keep = mass > 0
        if keep.all():
            side = Side(self.values, mass, self.units, self.n_units, self.period, totals)
            side._trees = self.__dict__.setdefault("_trees", {})  # every weighting shares the trees
        else:
            side = Side(self.values[keep], mass[keep], self.units[keep], self.n_units, self.period, totals)
        if basis is not None:
            chosen = np.where(np.asarray(basis), weights, 0.0)
            side.basis = tuple(
                np.bincount(self.frame_units, values, minlength=self.n_units) for values in (chosen, chosen * chosen)
            )
        return side


class Side:
    """Weighted points (locations) of one sample on one variable, sorted by unit, then value; every weight positive
    (:meth:`Layout.side`, or :meth:`build` from points).

    Parameters
    ----------
    values : ndarray
        (L, d) location values.
    weights, units : ndarray
        (L,) each location's weight and unit.
    n_units : int
    period : float, optional
        The period of a circular 1-D variable (values in [0, period)).
    unit_totals : ndarray, optional
        (n_units,) each unit's total weight, its points outside the ground truth's support included (the
        locations' when not given).
    """

    def __init__(self, values, weights, units, n_units: int, period: float | None = None, unit_totals=None):
        self.values, self.weights, self.units = values, weights, units
        self.dim = values.shape[1]
        self.n_units, self.period = int(n_units), period
        bounds = np.searchsorted(self.units, np.arange(self.n_units + 1))
        self.slices = [slice(int(bounds[u]), int(bounds[u + 1])) for u in range(self.n_units)]
        filled = np.diff(bounds) > 0
        self.unit_weights, squares = np.zeros(self.n_units), np.zeros(self.n_units)
        if filled.any():
            self.unit_weights[filled] = np.add.reduceat(self.weights, bounds[:-1][filled])
            squares[filled] = np.add.reduceat(self.weights * self.weights, bounds[:-1][filled])
        #: Per unit, the sum of weights and of squared weights whose ratio sets a ball's mass (:meth:`ball_mass`).
        self.basis = (self.unit_weights, squares)
        self.unit_totals = self.unit_weights if unit_totals is None else np.asarray(unit_totals, dtype=np.float64)
        self.pad = len(self.weights)  # the location index of padding (weight 0)
        self._trees: dict = {}

    def reweighted(self, weights: np.ndarray) -> "Side":
        """The same locations under other ``weights`` (L,); a location of weight 0 holds no mass (a pseudo-model's
        frames reweighted: the msm weighting's noise floor). It shares this side's trees."""
        side = Side(self.values, np.asarray(weights, dtype=np.float64), self.units, self.n_units, self.period)
        side._trees = self._trees
        return side

    def weight_of(self, location: np.ndarray) -> np.ndarray:
        """The weight of each location index (0 for :attr:`pad` and beyond: padding)."""
        location = np.asarray(location)
        real = (location >= 0) & (location < self.pad)
        if not self.pad:
            return np.zeros(location.shape)
        return np.where(real, self.weights[np.clip(location, 0, self.pad - 1)], 0.0)

    @classmethod
    def build(cls, points, weights, units, n_units: int, period: float | None = None, inside=None) -> "Side":
        """A side from points, their weights and units (zero-weight points, and those not ``inside`` the support,
        are no location)."""
        return Layout.of(points, units, n_units, period, inside).side(weights)

    def ball_mass(self, multiplicities: np.ndarray, k: int) -> np.ndarray:
        """Per replicate, the mass of a ball: ``k`` times the mean weight of the resampled side's points (each unit's
        ``multiplicities`` times), sum (m w)^2 / sum m w over the copies: k w for equal weights w. Mass moved out of
        the support (a share of every weight) scales it and the mass near a point alike: the ball keeps its radius
        and its density falls by that share. The mean is over :attr:`basis` (per unit: sum w, sum w^2), the
        locations' unless the side was given the frames that set it (:meth:`Layout.side`)."""
        weights, squares = self.basis
        with np.errstate(divide="ignore", invalid="ignore"):
            return k * (multiplicities @ squares) / (multiplicities @ weights)

    def same_as(self, other: "Side") -> bool:
        """Whether two sides hold the same values with proportional weights, whatever their units."""
        if self.dim != other.dim or len(self.weights) != len(other.weights):
            return False
        if not len(self.weights):
            return True
        mine = np.lexsort(tuple(self.values[:, d] for d in range(self.dim - 1, -1, -1)))
        theirs = np.lexsort(tuple(other.values[:, d] for d in range(other.dim - 1, -1, -1)))
        return bool(
            np.array_equal(self.values[mine], other.values[theirs])
            and np.allclose(
                self.weights[mine] / self.weights.sum(), other.weights[theirs] / other.weights.sum(), rtol=1e-12, atol=0
            )
        )

    def nearest(self, query: np.ndarray, unit: int, count: int, eps: float, exclude: np.ndarray | None = None):
        """The ``count`` nearest locations of ``unit`` to each query point: distances (Q, count) and location
        indices (padding: inf and :attr:`pad`); the unit's weight within ``eps`` of each query point; and the
        distance of the farthest listed location where the unit has more (else inf). ``exclude``: per query point a
        location left out (the query point itself)."""
        part = self.slices[unit]
        values = self.values[part]
        q = len(query)
        distance = np.full((q, count), np.inf)
        location = np.full((q, count), self.pad, dtype=np.int64)
        reach = np.full(q, np.inf)
        if not len(values) or not q:
            return distance, location, np.zeros(q), reach
        want = min(count + (exclude is not None), len(values))
        if self.dim == 1:
            d, idx = self._nearest_1d(values[:, 0], query[:, 0], want)
        else:
            d, idx = self._nearest_tree(unit, values, query, want)
        idx = idx + part.start
        if exclude is not None:
            d = np.where(idx == exclude[:, None], np.inf, d)
            order = np.argsort(d, axis=1, kind="stable")
            d, idx = np.take_along_axis(d, order, 1), np.take_along_axis(idx, order, 1)
        width = min(count, d.shape[1])
        distance[:, :width] = d[:, :width]
        location[:, :width] = np.where(np.isfinite(d[:, :width]), idx[:, :width], self.pad)
        listed = np.isfinite(distance).sum(axis=1)
        others = len(values) - (0 if exclude is None else ((exclude >= part.start) & (exclude < part.stop)))
        more = others > listed
        reach = np.where(more & (listed > 0), distance[np.arange(q), np.maximum(listed - 1, 0)], reach)
        reach = np.where(more & (listed == 0), 0.0, reach)
        return distance, location, self._atom(unit, values, query, eps, part.start, exclude), reach

    def _nearest_1d(self, values: np.ndarray, query: np.ndarray, want: int):
        """The ``want`` nearest of sorted 1-D ``values`` (circular distance when periodic): a window of 2 ``want``
        about each insertion point holds them."""
        n = len(values)
        if self.period is not None:
            if n <= 2 * want:  # a small unit: every location
                d = np.abs(query[:, None] - values[None, :])
                d = np.minimum(d, self.period - d)
                order = np.argsort(d, axis=1, kind="stable")[:, :want]
                return np.take_along_axis(d, order, 1), order
            ext = np.concatenate([values[-want:] - self.period, values, values[:want] + self.period])
            ext_index = np.concatenate([np.arange(n - want, n), np.arange(n), np.arange(want)])
        else:
            ext, ext_index = values, np.arange(n)
        width = min(2 * want, len(ext))
        start = np.clip(np.searchsorted(ext, query) - want, 0, len(ext) - width)
        window = start[:, None] + np.arange(width)
        d = np.abs(ext[window] - query[:, None])
        order = np.argsort(d, axis=1, kind="stable")[:, :want]
        return np.take_along_axis(d, order, 1), ext_index[np.take_along_axis(window, order, 1)]

    def _tree(self, unit: int, values: np.ndarray):
        from scipy.spatial import cKDTree

        if unit not in self._trees:
            self._trees[unit] = cKDTree(values)
        return self._trees[unit]

    def _nearest_tree(self, unit: int, values: np.ndarray, query: np.ndarray, want: int):
        d, idx = self._tree(unit, values).query(query, want)
        d, idx = d.reshape(len(query), want), idx.reshape(len(query), want)
        return d, np.where(np.isfinite(d), idx, 0)

    def _atom(self, unit, values, query, eps, offset, exclude) -> np.ndarray:
        """The unit's weight within ``eps`` of each query point (the excluded location left out)."""
        weights = self.weights[offset : offset + len(values)]
        if self.dim == 1:
            cumulative = np.concatenate(([0.0], np.cumsum(weights)))
            low = np.searchsorted(values[:, 0], query[:, 0] - eps, side="left")
            high = np.searchsorted(values[:, 0], query[:, 0] + eps, side="right")
            atom = cumulative[high] - cumulative[low]
        else:
            lists = self._tree(unit, values).query_ball_point(query, eps)
            atom = np.array([weights[i].sum() if len(i) else 0.0 for i in lists])
        if exclude is not None:
            inside = (exclude >= offset) & (exclude < offset + len(values))
            atom = atom - np.where(inside, self.weight_of(exclude), 0.0)
        return np.maximum(atom, 0.0)

    def candidates(self, query, count: int, eps: float, skip=None, exclude=None, only=None) -> Candidates:
        """Every unit's ``count`` nearest locations to each query point, merged and sorted by distance.

        ``skip``: per query point a unit left out (its own); ``only``: per query point the one unit kept;
        ``exclude``: per query point a location left out.
        """
        q = len(query)
        units = range(self.n_units)
        if only is not None:  # one unit per query point: search each unit for its own query points only
            parts = [self._only(query, np.asarray(only), u, count, eps, exclude) for u in units]
        else:
            parts = [self.nearest(query, u, count, eps, exclude) for u in units]
        distance = np.concatenate([p[0] for p in parts], axis=1) if parts else np.full((q, 0), np.inf)
        location = np.concatenate([p[1] for p in parts], axis=1) if parts else np.zeros((q, 0), np.int64)
        atom = np.stack([p[2] for p in parts], axis=1) if parts else np.zeros((q, 0))
        reach = np.stack([p[3] for p in parts], axis=1) if parts else np.zeros((q, 0))
        if skip is not None:
            mine = np.arange(self.n_units)[None, :] == np.asarray(skip)[:, None]
            distance = np.where(np.repeat(mine, count, axis=1), np.inf, distance)
            atom, reach = np.where(mine, 0.0, atom), np.where(mine, np.inf, reach)
        # Each unit's listed weight and farthest listed location with weight, from the units' own lists.
        weight = self.padded[1][np.where(np.isfinite(distance), location, self.pad)].reshape(q, self.n_units, count)
        listed = weight.sum(axis=2)
        farthest = np.max(np.where(weight > 0, distance.reshape(weight.shape), -np.inf), axis=2, initial=-np.inf)
        del weight
        order = np.argsort(distance, axis=1, kind="stable")
        distance = np.take_along_axis(distance, order, 1)
        location = np.take_along_axis(location, order, 1)
        positions = None
        if only is not None:
            keep = min(count, distance.shape[1])
            distance, location = distance[:, :keep], location[:, :keep]
        elif distance.shape[1] < np.iinfo(np.int32).max:  # where each unit's list lies in the merged one
            positions = np.empty(order.shape, dtype=np.int32)
            np.put_along_axis(positions, order, np.arange(order.shape[1], dtype=np.int32)[None, :], axis=1)
            positions = positions.reshape(q, self.n_units, count)
        del order
        index = np.int32 if self.pad < np.iinfo(np.int32).max else np.int64
        location = np.where(np.isfinite(distance), location, self.pad).astype(index)
        return Candidates(distance, location, atom, reach, *self.padded, listed, farthest, positions)

    @property
    def padded(self) -> tuple[np.ndarray, np.ndarray]:
        """Each location's unit and weight with :attr:`pad` appended (unit 0, weight 0), as candidates read them."""
        if getattr(self, "_padded", None) is None:
            self._padded = (np.append(self.units, 0).astype(np.int64), np.append(self.weights, 0.0))
        return self._padded

    def _only(self, query, only, unit, count, eps, exclude):
        """:meth:`nearest` for the query points whose unit is ``unit``; nothing (inf) for the others."""
        q = len(query)
        rows = np.flatnonzero(only == unit)
        distance = np.full((q, count), np.inf)
        location = np.full((q, count), self.pad, dtype=np.int64)
        atom, reach = np.zeros(q), np.full(q, np.inf)
        if len(rows):
            d, loc, a, r = self.nearest(query[rows], unit, count, eps, None if exclude is None else exclude[rows])
            distance[rows], location[rows], atom[rows], reach[rows] = d, loc, a, r
        return distance, location, atom, reach


def crossing(cands: Candidates, multiplicities: np.ndarray, target: np.ndarray, eps: float, check: bool = False):
    """Per replicate and query point: the radius of the smallest ball holding ``target`` mass (at least ``eps``);
    the mass it holds (at least ``target``: a heavy point at its edge counts whole; the atom's mass where the ball
    is within ``eps``; what the lists hold where they hold less); where the lists may have fallen short (only with
    ``check``: a present unit has more mass beyond its listed locations inside the ball, or the lists never reach
    the target); and the atom's mass (within ``eps``; None where no ball is that small:
    :meth:`VariableKL._ball` computes it where it needs it).

    ``multiplicities``: (batch, n_units); ``target``: (batch,) the ball's mass (:meth:`Side.ball_mass`).
    """
    batch = len(multiplicities)
    q, c = cands.distance.shape
    target = np.broadcast_to(np.asarray(target, dtype=np.float64)[:, None], (batch, q))
    if c == 0 or q == 0:
        nothing = np.zeros((batch, q))
        return np.full((batch, q), np.inf), nothing, np.ones((batch, q), dtype=bool), nothing
    # The first candidates of every (replicate, query point), laid out candidate-first: (W, Q, B) sums fast.
    width = min(WIDTHS[0], c)
    w = multiplicities.T[cands.unit(width=width).T] * cands.weight(width=width).T[:, :, None]
    cumulative = np.cumsum(w, axis=0)
    reached = cumulative >= target.T * (1 - ROUNDING)
    ok = reached[-1]
    position = np.argmax(reached, axis=0)  # (Q, B)
    radius = np.take_along_axis(cands.distance[:, :width], position, axis=1).T.copy()
    held = np.take_along_axis(cumulative, position[None], 0)[0]  # the ball's mass: at least the goal
    mass = np.where(ok, held, cumulative[-1]).T.copy()
    ok = ok.T.copy()
    del w, cumulative, reached
    if not ok.all():
        state = (radius, mass, ok, ~ok)  # pending: the (replicate, query) pairs that need more candidates
        _unreachable(cands, multiplicities, target, state)
        if cands.positions is not None:
            _few_units(cands, multiplicities, target, state)
        _longer_lists(cands, multiplicities, target, state)
    inside = radius <= eps
    atom = None  # computed where needed: (batch, Q) of the units' weight within eps, with multiplicities
    if inside.any():
        atom = multiplicities @ cands.atom.T
        mass = np.where(inside, atom, mass)  # an atom: its mass (at least the target)
    short = ~ok
    if check:
        present = multiplicities > 0
        short = short | np.any(present[:, None, :] & (cands.reach[None, :, :] < radius[..., None]), axis=-1)
    return np.maximum(radius, eps), mass, short, atom


def _first(distance: np.ndarray, w: np.ndarray, goal: np.ndarray):
    """Along the last axis of sorted candidates (``distance``, weights ``w``): the distance and mass where the
    cumulative mass first reaches ``goal``, and whether it does (else all the mass, out to the farthest location
    with mass)."""
    cumulative = np.cumsum(w, axis=-1)
    reached = cumulative >= goal[..., None] * (1 - ROUNDING)
    ok = reached[..., -1]
    position = np.argmax(reached, axis=-1)
    d = np.take_along_axis(distance, position[..., None], -1)[..., 0]
    held = np.take_along_axis(cumulative, position[..., None], -1)[..., 0]  # the ball's mass: at least the goal
    mass = np.where(ok, held, cumulative[..., -1])
    if not ok.all():  # the farthest listed location with mass
        last = np.where(w > 0, np.arange(w.shape[-1]), -1).max(axis=-1)
        far = np.take_along_axis(distance, np.maximum(last, 0)[..., None], -1)[..., 0]
        d = np.where(ok, d, np.where(last >= 0, far, np.inf))
    return d, mass, ok


def _unreachable(cands: Candidates, multiplicities, target, state) -> None:
    """:func:`crossing`'s pending pairs whose whole lists hold less than the target: the ball is all they hold, out
    to their farthest location with mass, settled by each unit's listed weight and farthest distance without
    reading the lists. Fills ``state`` (radius, mass, ok, pending) in place; they stay not ``ok``."""
    radius, mass, _, pending = state
    b, i = np.nonzero(pending)
    present = multiplicities[b]
    total = np.einsum("pu,pu->p", present, cands.listed[i])
    far = np.max(np.where(present > 0, cands.farthest[i], -np.inf), axis=1, initial=-np.inf)
    unreached = total < target[b, i] * (1 - ROUNDING)
    b, i, far = b[unreached], i[unreached], far[unreached]
    radius[b, i], mass[b, i] = np.where(far > -np.inf, far, np.inf), total[unreached]
    pending[b, i] = False


def _longer_lists(cands: Candidates, multiplicities, target, state) -> None:
    """:func:`crossing`'s pending pairs read further: the first :data:`WIDTHS` [1] candidates, then all, a bounded
    block of pairs at a time. Fills ``state`` (radius, mass, ok, pending) in place."""
    radius, mass, ok, pending = state
    c = cands.distance.shape[1]
    for width in (min(WIDTHS[1], c), c):
        if not pending.any():
            break
        b, i = np.nonzero(pending)
        step = max(1, PAIRS // width)  # (pairs, width) arrays
        for start in range(0, len(b), step):
            bb, ii = b[start : start + step], i[start : start + step]
            w = multiplicities[bb[:, None], cands.unit(ii, width)] * cands.weight(ii, width)
            radius[bb, ii], mass[bb, ii], done = _first(cands.distance[ii, :width], w, target[bb, ii])
            pending[bb, ii] = ~done
        ok[b, i] = ~pending[b, i]


def _few_units(cands: Candidates, multiplicities, target, state) -> None:
    """:func:`crossing`'s long lists for the replicates that hold few units (the noise floor's splits at a model's
    size: one to a few ground-truth units of a hundred): their units' candidates only, in the merged order, so the
    cumulative mass is the one the whole list gives (an absent unit's candidates add 0). Fills ``state`` (radius,
    mass, ok, pending: (batch, Q) each) in place for those replicates."""
    radius, mass, ok, pending = state
    present = multiplicities > 0
    n_present = present.sum(axis=1)
    few = (n_present > 0) & (n_present * cands.positions.shape[2] * FEW_UNITS <= cands.distance.shape[1])
    for b in np.flatnonzero(few & pending.any(axis=1)):
        rows, units = np.flatnonzero(pending[b]), np.flatnonzero(present[b])
        columns = np.sort(cands.positions[rows[:, None], units[None, :]].reshape(len(rows), -1), axis=1)
        location = cands.location[rows[:, None], columns]
        w = multiplicities[b][cands.units[location]] * cands.weights[location]
        distance = cands.distance[rows[:, None], columns]
        radius[b, rows], mass[b, rows], ok[b, rows] = _first(distance, w, target[b, rows])
        pending[b, rows] = False


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


#: The suite's KL estimators (``metrics.kl_estimator``).
ESTIMATORS = ("nearest_neighbours", "histogram")


class SuiteKL:
    """The metric suite's KL rows by nearest neighbours (:class:`VariableKL` per distribution), in place of the
    histogram KL rows of :class:`westbench.metrics.resampling.BinnedDivergences`.

    Parameters
    ----------
    keys : list
        The suite's statistics, (metric, distribution) in order; the ("kl", name) rows are replaced.
    reference, sample : mapping
        Per distribution, (n_frames, k) values of the ground truth and of the model.
    reference_tics, sample_tics : ndarray
        (n_frames, 2) TIC 0/1 (the ``tic01`` row).
    reference_units, sample_units : ndarray
        Each frame's independent unit (:func:`westbench.metrics.resampling.resampling_units`).
    reference_weights : ndarray
        The ground truth's frame weights.
    periods : mapping
        (low, high) of the periodic distributions.
    k, query_points : int
        Neighbours per density, and the most ground-truth locations a KL is averaged over.
    floor : float
        ``kl_floor``: the least model mass read near a ground-truth point, as a share of the support's volume.
    orders : mapping, optional
        Per 1-D distribution, the ascending order of the ground truth's and the model's flattened values, where
        already sorted (:attr:`westbench.metrics.divergences.Wasserstein1D.orders`): no second sort.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> gt = {"tic0": rng.normal(size=(400, 1))}
    >>> model = {"tic0": rng.normal(0.5, 1, size=(400, 1))}
    >>> suite_kl = SuiteKL([("w1", "tic0"), ("kl", "tic0")], gt, model, None, None, np.arange(400) % 8,
    ...                    np.arange(400) % 4, np.ones(400), {})
    >>> binned = lambda multiplicities: np.zeros((2, len(multiplicities[0])))  # the W1 row's stand-in
    >>> values = suite_kl.statistic(binned, np.ones(400))([np.ones((1, 8)), np.ones((1, 4))])
    >>> values.shape, bool(0.02 < values[1, 0] < 0.4)
    ((2, 1), True)
    """

    def __init__(
        self,
        keys,
        reference: Mapping,
        sample: Mapping,
        reference_tics,
        sample_tics,
        reference_units,
        sample_units,
        reference_weights,
        periods: Mapping,
        k: int = NEIGHBOURS,
        query_points: int = QUERY_POINTS,
        floor: float = default("metrics.kl_floor"),
        orders: Mapping | None = None,
    ):
        self.rows = [i for i, (metric, name) in enumerate(keys) if metric == "kl"]
        self.names = [keys[i][1] for i in self.rows]
        self.k, self.query_points = int(k), int(query_points)
        reference_units = np.asarray(reference_units, dtype=np.int64)
        sample_units = np.asarray(sample_units, dtype=np.int64)
        n_reference_units = int(reference_units.max()) + 1 if len(reference_units) else 1
        n_sample_units = int(sample_units.max()) + 1 if len(sample_units) else 1
        self.reference_weights = reference_weights = np.asarray(reference_weights, dtype=np.float64)
        self.variables: dict[str, VariableKL] = {}
        self.layouts: dict[str, tuple[Layout, int]] = {}
        self.reference_layouts: dict[str, Layout] = {}  # the ground truth's, to reweight (the msm floor)
        for name in self.names:
            if name == "tic01":
                ref_points = np.asarray(reference_tics, dtype=np.float64)[:, :2]
                model_points = np.asarray(sample_tics, dtype=np.float64)[:, :2]
                per_frame, period = 1, None
            else:
                ref_values, model_values = np.asarray(reference[name]), np.asarray(sample[name])
                per_frame = ref_values.shape[1]
                ref_points, model_points = ref_values.ravel(), model_values.ravel()
                period = None
                if name in periods:
                    low, high = periods[name]
                    period = float(high - low)
                    ref_points, model_points = ref_points - low, model_points - low
            both = prepared(ref_points, model_points, np.repeat(reference_weights, per_frame), period)
            ref_order, model_order = (orders or {}).get(name, (None, None))
            self.reference_layouts[name] = Layout.of(
                both.reference,
                np.repeat(reference_units, per_frame),
                n_reference_units,
                period,
                order=ref_order,
                per_frame=per_frame,
            )
            reference_side = self.reference_layouts[name].side(reference_weights)
            self.variables[name] = both.estimator(reference_side, self.k, self.query_points, floor)
            model_layout = Layout.of(
                both.model,
                np.repeat(sample_units, per_frame),
                n_sample_units,
                period,
                both.inside,
                model_order,
                per_frame,
            )
            self.layouts[name] = (model_layout, per_frame)
        # The model's frames inside the ground truth's TIC 0/1 range (padded): their mean weight sets every ball's
        # mass, so a weighting that moves weight between frames outside it (far mass, the msm weighting's overflow
        # cells) leaves every ball as it was.
        self.in_box = None
        if reference_tics is not None and sample_tics is not None:
            self.in_box = prepared(
                np.asarray(reference_tics, dtype=np.float64)[:, :2],
                np.asarray(sample_tics, dtype=np.float64)[:, :2],
                np.asarray(reference_weights, dtype=np.float64),
            ).inside
            if not self.in_box.any():
                self.in_box = None
        self._sides: tuple = (None, {})

    def sides(self, weights) -> dict[str, Side]:
        """The model's weighted locations per distribution under frame ``weights`` (the last weights' cached)."""
        cached, sides = self._sides
        if cached is not weights:
            sides = {name: layout.side(weights, self.in_box) for name, (layout, _) in self.layouts.items()}
            self._sides = (weights, sides)
        return sides

    def statistic(self, binned, weights):
        """``binned`` (the histogram statistic: [ground truth, model] multiplicities -> (n_statistics, batch)) with
        its KL rows by nearest neighbours under the model's frame ``weights``."""
        sides = self.sides(weights)

        def compute(multiplicities):
            values = np.array(binned(multiplicities), dtype=np.float64)
            reference, model = multiplicities
            for row, name in zip(self.rows, self.names):
                values[row] = self.variables[name].values(sides[name], reference, model)
            return values

        return compute

    def split_halves(self, binned):
        """``binned`` (the histogram noise-floor splits: (n_splits, n_units) indicators -> (n_statistics, n_splits))
        with its KL rows by nearest neighbours."""

        def compute(subsets):
            values = np.array(binned(subsets), dtype=np.float64)
            subsets = np.asarray(subsets, dtype=np.float64)
            for row, name in zip(self.rows, self.names):
                values[row] = self.variables[name].split_values(1.0 - subsets, subsets)
            return values

        return compute

    def reweighted_split(self, values: np.ndarray, rest: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """``values`` (every statistic of one noise-floor split) with its KL rows: the ground truth's ``rest`` units
        ((n_units,) multiplicities) against its own frames under ``weights`` (a pseudo-model reweighted)."""
        values = np.array(values, dtype=np.float64)
        weights = np.asarray(weights, dtype=np.float64)
        for row, name in zip(self.rows, self.names):
            frame = self.reference_layouts[name].frame
            located = frame[self.reference_weights[frame] > 0]  # the frame of each location (weightless: none)
            values[row] = self.variables[name].reweighted_split(rest, weights[located])
        return values

    def floored_share(self, name: str, weights) -> float:
        """The share of a distribution's estimate under the model's frame ``weights`` from ground-truth points where
        the model's density is read at the floor (:meth:`VariableKL.floored_share`)."""
        return self.variables[name].floored_share(self.sides(weights)[name])

    def too_few_points(self, name: str, floor_frames: float, model_frames: float) -> str:
        """Why a distribution's KL verdict cannot rest on its noise floor, or "" when it can: a ball holds ``k``
        points' weight, and where the floor's pseudo-model (``floor_frames``: its ground-truth runs' frames) or the
        model (``model_frames``: its effective frames) holds no more, every ball spans the support, both densities
        read the same and the floor reads 0 whatever the distributions (a ground truth reweighted by its own MSM
        then reads *separated* from itself)."""
        per_frame = self.layouts[name][1] if name in self.layouts else 1
        smallest = per_frame * min(floor_frames, model_frames)
        if smallest > self.k:
            return ""
        side = "noise floor's pseudo-model" if floor_frames <= model_frames else "model (effective frames)"
        return (
            f"too few points for the nearest-neighbour KL: its {side} holds {smallest:.1f} points of this "
            f"distribution, no more than the {self.k} neighbours a ball holds, so the floor cannot be measured; more "
            "frames per ground-truth run and model frames, or a smaller metrics.kl_neighbours"
        )

    def largest(self, name: str) -> float:
        """The largest KL any model could score on a distribution: every ground-truth point's model density read
        at the floor (all the model's mass off the ground truth's support)."""
        variable = self.variables[name]
        log_p, query_weights = variable.log_reference(np.ones((1, variable.reference.n_units)))
        return float(variable.combine(log_p, np.full_like(log_p, variable.log_floor), query_weights)[0])

    def describe(self) -> dict:
        """What metrics.json records of the estimator."""
        return {
            "method": "nearest_neighbours",
            "neighbours": self.k,
            "query_points": self.query_points,
            "query_points_used": {name: int(len(v.query)) for name, v in self.variables.items()},
        }


def suite_kl(
    settings: Mapping,
    keys,
    reference,
    sample,
    reference_tics,
    sample_tics,
    reference_units,
    sample_units,
    reference_weights,
    periods,
    orders: Mapping | None = None,
) -> SuiteKL | None:
    """The suite's nearest-neighbour KL rows under ``settings`` (``kl_estimator``, ``kl_neighbours``,
    ``kl_query_points``); None for the histogram estimator."""
    method = settings.get("kl_estimator", ESTIMATORS[0])
    if method not in ESTIMATORS:
        raise WestbenchError(f"metrics.kl_estimator must be one of {list(ESTIMATORS)}, got {method!r}")
    if method == "histogram":
        return None
    return SuiteKL(
        keys,
        reference,
        sample,
        reference_tics,
        sample_tics,
        reference_units,
        sample_units,
        reference_weights,
        periods,
        int(settings.get("kl_neighbours", NEIGHBOURS)),
        int(settings.get("kl_query_points", QUERY_POINTS)),
        float(settings.get("kl_floor", default("metrics.kl_floor"))),
        orders,
    )


#: Marks of a KL value that is not a score (``metrics.json``: ``kl_marks``); "" for a score.
PINNED, BIASED = "pinned", "bias"
#: A histogram KL is pinned when more than this share of it comes from cells read at the floor.
PINNED_SHARE = 0.5


def kl_mark(
    floor_value: float | None,
    floor_high: float | None,
    floored_share: float | None = None,
    reachable: float = np.inf,
) -> tuple[str, str]:
    """Whether a KL value can be read as a score: ("", "") when it can, else (mark, reason) with the mark
    :data:`PINNED` or :data:`BIASED`.

    - *pinned*: more than half of the value comes from ground-truth cells where the model has no mass, each read
      at ``kl_floor`` (``floored_share``), or the noise floor (the ground truth against itself at the model's
      size) reads half or more of the largest value any model could reach (``reachable``): the number measures
      the bin floor and the sample size, not a divergence (histogram estimator only);
    - *bias*: the estimator's bias at this sample size exceeds its noise: the noise floor's median (what zero
      divergence reads at the model's size: the estimator's bias there) is larger than the floor's spread above
      it (upper bound minus median).

    Examples
    --------
    >>> kl_mark(15.5, 15.7, floored_share=0.9)[0], kl_mark(0.03, 0.2)[0], kl_mark(0.2, 0.27)[0]
    ('pinned', '', 'bias')
    """
    if floored_share is not None and floored_share > PINNED_SHARE:
        return PINNED, (
            f"pinned by the bin floor: {100 * floored_share:.0f} % of the value comes from ground-truth cells where "
            "the model has no mass, each read at metrics.kl_floor; it measures the floor, not the divergence "
            "(metrics.kl_estimator: nearest_neighbours has no floor)"
        )
    if floor_value is not None and np.isfinite(reachable) and floor_value >= 0.5 * reachable:
        return PINNED, (
            f"pinned by the bin floor: the ground truth against itself at this sample size reads {floor_value:.3g}, "
            f"half or more of the largest value any model could reach ({reachable:.3g}); more ground-truth runs, or "
            "metrics.kl_estimator: nearest_neighbours"
        )
    if floor_value is not None and floor_high is not None and floor_value > floor_high - floor_value:
        return BIASED, (
            f"the estimator's bias exceeds its noise at this sample size: the ground truth against itself reads "
            f"{floor_value:.3g} (its value at zero divergence), more than that reading's spread "
            f"({floor_high - floor_value:.3g}); the value is mostly bias, not divergence (more ground-truth runs and "
            "model frames lower it; docs/scoring.md, KL estimators against known answers)"
        )
    return "", ""
