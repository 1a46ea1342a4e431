"""Weighted points of one sample, sorted by independent unit, and their nearest-neighbour candidate lists.

The nearest-neighbour KL (:mod:`westbench.metrics.kl`) reads densities from balls about query points for any
multiplicities of independent units (bootstrap replicates, noise-floor splits). It lists, once, each unit's nearest
locations to every query point (:meth:`Side.candidates`), merged and sorted by distance; a resample then reads
the lists with its multiplicities (:func:`westbench.metrics.ball_crossing.crossing`) and searches nothing again.

- :class:`Layout`: one sample's points on one variable sorted once by unit, then value; weighed per weighting.
- :class:`Side`: the weighted locations (per unit: slices, total weights, trees), and the searches.
- :class:`Candidates`: the merged lists, 16 bytes a candidate, with what settles a ball without reading them.

Examples
--------
>>> import numpy as np
>>> side = Side.build(np.array([0.0, 1.0, 2.0, 10.0]), np.ones(4), np.array([0, 0, 1, 1]), n_units=2)
>>> cands = side.candidates(np.array([[0.9]]), count=1, eps=1e-9)
>>> cands.distance.round(2).tolist(), cands.unit().tolist()  # each unit's nearest location, merged by distance
([[0.1, 1.1]], [[0, 1]])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


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
    lists cannot fill without reading the lists (:func:`westbench.metrics.ball_crossing.crossing`). ``positions``
    (Q, U, n): the columns of each unit's n listed candidates, so that a replicate holding few units reads only
    theirs.
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
