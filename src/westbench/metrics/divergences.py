"""Divergences between the ground truth and a model, for 1-D and 2-D distributions.

Conventions (pitfalls of the published code, the published WE benchmark, arXiv:2510.17187):
- KL is always KL(ground truth || model): the reference comes first.
- Empty model bins where the ground truth has mass get the configured ``floor``
  probability (then the model histogram is renormalized); tables state the floor.

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> a, b = rng.normal(0, 1, 200_000), rng.normal(0.5, 1, 200_000)
>>> round(wasserstein_1d(a, b), 2)
0.5
"""

from __future__ import annotations

import numpy as np
from scipy.stats import wasserstein_distance

from westbench.config import default
from westbench.metrics.weighted import histogram, histogram2d, normalized
from westbench.without_torch import import_without_torch


def wasserstein_1d(reference, model, reference_weights=None, model_weights=None) -> float:
    """Wasserstein-1 distance between two weighted 1-D samples (scipy)."""
    return float(
        wasserstein_distance(
            np.ravel(reference),
            np.ravel(model),
            None if reference_weights is None else normalized(reference_weights),
            None if model_weights is None else normalized(model_weights),
        )
    )


class Wasserstein1D:
    """W1 between two fixed 1-D samples under changing weights.

    scipy's CDF-difference algorithm (``scipy.stats.wasserstein_distance``) with
    its three sorts done once: the suite scores each pair of samples under several
    weightings (WE, MSM, counts), and the sorts dominate its time otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import wasserstein_distance
    >>> rng = np.random.default_rng(0)
    >>> a, b, wa, wb = rng.normal(size=500), rng.normal(1, 2, 300), rng.random(500), rng.random(300)
    >>> bool(np.isclose(Wasserstein1D(a, b)(wa, wb), wasserstein_distance(a, b, wa, wb), rtol=1e-12))
    True
    """

    def __init__(self, reference, model):
        reference, model = np.ravel(reference).astype(np.float64), np.ravel(model).astype(np.float64)
        self._sorters = (np.argsort(reference, kind="stable"), np.argsort(model, kind="stable"))
        all_values = np.sort(np.concatenate((reference, model)), kind="mergesort")
        self._deltas = np.diff(all_values)
        self._cdf_indices = tuple(
            values[sorter].searchsorted(all_values[:-1], "right")
            for values, sorter in zip((reference, model), self._sorters)
        )

    def _cdf(self, side: int, weights) -> np.ndarray:
        sorter, indices = self._sorters[side], self._cdf_indices[side]
        if weights is None:
            return indices / len(sorter)
        cumulative = np.concatenate(([0.0], np.cumsum(np.asarray(weights, dtype=np.float64)[sorter])))
        return cumulative[indices] / cumulative[-1]

    def __call__(self, reference_weights=None, model_weights=None) -> float:
        return float(np.dot(np.abs(self._cdf(0, reference_weights) - self._cdf(1, model_weights)), self._deltas))


class CircularWasserstein1D(Wasserstein1D):
    """W1 on a circle of circumference ``period`` (dihedrals: 2 pi) between two fixed samples under changing weights.

    On the circle W1 = min over c of the integral of |F - G - c| around it (Rabin, Delon and
    Gousseau, J Math Imaging Vis 2011): c is the length-weighted median of the CDF difference.
    Values are wrapped into [low, low + period).

    Examples
    --------
    >>> a, b = np.radians([170.0]), np.radians([-170.0])  # 20 degrees apart across +-180
    >>> round(float(np.degrees(CircularWasserstein1D(a, b)())), 6)
    20.0
    >>> round(float(np.degrees(Wasserstein1D(a, b)())), 6)  # the line's W1 goes the long way round
    340.0
    """

    def __init__(self, reference, model, period: float = 2 * np.pi, low: float = -np.pi):
        wrap = lambda values: low + np.mod(np.ravel(values).astype(np.float64) - low, period)  # noqa: E731
        reference, model = wrap(reference), wrap(model)
        super().__init__(reference, model)
        pooled = np.concatenate((reference, model))
        self._wrap_delta = float(pooled.min() + period - pooled.max())

    def __call__(self, reference_weights=None, model_weights=None) -> float:
        difference = np.append(self._cdf(0, reference_weights) - self._cdf(1, model_weights), 0.0)
        lengths = np.append(self._deltas, self._wrap_delta)
        order = np.argsort(difference, kind="stable")
        cumulative = np.cumsum(lengths[order])
        shift = difference[order][np.searchsorted(cumulative, 0.5 * cumulative[-1])]
        return float(np.dot(np.abs(difference - shift), lengths))


def kl_from_histograms(p: np.ndarray, q: np.ndarray, floor: float) -> float:
    """KL(p || q) of two histograms on the same cells (any shape; flattened), both normalized first.

    A cell where ``p`` has mass gets at least min(``floor``, p) in ``q`` (no renormalization):
    the value is finite, 0 when q equals p, and never lowered by moving model mass out of the
    ground truth's cells (each term falls with its q). Cells where ``p`` has none add nothing, so
    model mass there (the overflow cells of :class:`westbench.metrics.binning.ReferenceBins`) only
    raises the value. NaN when either histogram is empty.

    Examples
    --------
    >>> kl_from_histograms([0.5, 0.5, 0.0], [0.5, 0.5, 0.0], 1e-8)
    0.0
    >>> [round(kl_from_histograms([0.5, 0.5, 0.0], [0.5 - x, 0.5, x], 1e-8), 3) for x in (0.1, 0.3)]  # mass out
    [0.112, 0.458]
    """
    return float(kl_batch(np.ravel(p)[None, :], np.ravel(q)[None, :], floor)[0])


def kl_batch(p: np.ndarray, q: np.ndarray, floor: float) -> np.ndarray:
    """:func:`kl_from_histograms` of each row of two (batch, cells) arrays."""
    p, q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    p_total, q_total = p.sum(axis=-1, keepdims=True), q.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p, q = p / p_total, q / q_total
        mass = p > 0
        floored = np.maximum(q, np.minimum(floor, p))
        terms = np.where(mass, p * np.log(np.where(mass, p, 1.0) / np.where(mass, floored, 1.0)), 0.0)
    value = np.maximum(terms.sum(axis=-1), 0.0)  # round-off (and floors above 1 in sum) never go below 0
    empty = (p_total[..., 0] <= 0) | (q_total[..., 0] <= 0) | ~np.isfinite(p_total[..., 0] + q_total[..., 0])
    return np.where(empty, np.nan, value)


def w1_from_histograms(p: np.ndarray, q: np.ndarray, edges: np.ndarray, periodic: bool = False) -> np.ndarray:
    """W1 of each row of two (batch, cells) histograms on a :class:`~westbench.metrics.binning.TransportGrid`.

    A cell's mass sits at its lower edge. On a circle (``periodic``, equal cells) the CDF
    difference is shifted by its median before integrating: the circular W1 of
    :class:`CircularWasserstein1D`.

    Examples
    --------
    >>> edges = np.array([0.0, 1.0, 2.0, 3.0])
    >>> w1_from_histograms(np.array([[1.0, 0, 0]]), np.array([[0, 0, 1.0]]), edges).tolist()
    [2.0]
    """
    p, q = np.atleast_2d(np.asarray(p, dtype=np.float64)), np.atleast_2d(np.asarray(q, dtype=np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        difference = np.cumsum(p, axis=-1) / p.sum(axis=-1, keepdims=True) - np.cumsum(q, axis=-1) / q.sum(
            axis=-1, keepdims=True
        )
    widths = np.diff(np.asarray(edges, dtype=np.float64))
    if periodic:
        difference = difference - np.median(difference, axis=-1, keepdims=True)
        return np.abs(difference) @ widths
    return np.abs(difference[..., :-1]) @ widths[:-1]


def common_edges(reference: np.ndarray, model: np.ndarray, bins: int) -> np.ndarray:
    """Bin edges spanning both samples."""
    low = min(np.min(reference), np.min(model))
    high = max(np.max(reference), np.max(model))
    if high <= low:
        high = low + 1e-9
    return np.linspace(low, high, bins + 1)


def kl_1d(
    reference,
    model,
    reference_weights=None,
    model_weights=None,
    bins: int = default("metrics.bins"),
    floor: float = default("metrics.kl_floor"),
) -> float:
    """KL(ground truth || model) of two weighted 1-D samples on ``bins`` common bins."""
    edges = common_edges(reference, model, bins)
    return kl_from_histograms(
        histogram(np.ravel(reference), edges, reference_weights),
        histogram(np.ravel(model), edges, model_weights),
        floor,
    )


def kl_2d(
    reference,
    model,
    reference_weights=None,
    model_weights=None,
    bins: int = default("metrics.bins"),
    floor: float = default("metrics.kl_floor"),
) -> float:
    """KL(ground truth || model) of two weighted (n, 2) samples on a common ``bins`` x ``bins`` grid."""
    edges = tuple(common_edges(reference[:, d], model[:, d], bins) for d in range(2))
    return kl_from_histograms(
        histogram2d(reference, edges, reference_weights), histogram2d(model, edges, model_weights), floor
    )


def wasserstein_2d(reference, model, reference_weights=None, model_weights=None, bins: int = 50) -> float:
    """Wasserstein-1 between two weighted (n, 2) samples, exact optimal transport (POT) between their histograms.

    Both samples are binned on a common ``bins`` x ``bins`` grid; mass moves between the
    centres of occupied cells at Euclidean cost (so the value is accurate to about one
    cell width). ``ot.emd2`` solves the transport exactly.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.zeros((10, 2)); b = np.column_stack([np.ones(10), np.zeros(10)])
    >>> round(wasserstein_2d(np.vstack([a, b]), np.vstack([a, b]) + [0.0, 2.0], bins=100), 1)  # shifted by 2
    2.0
    """
    ot = import_without_torch("ot")

    reference, model = np.asarray(reference, dtype=np.float64), np.asarray(model, dtype=np.float64)
    edges = tuple(common_edges(reference[:, d], model[:, d], bins) for d in range(2))
    p, q = histogram2d(reference, edges, reference_weights), histogram2d(model, edges, model_weights)
    centres = np.stack(np.meshgrid(*(0.5 * (e[1:] + e[:-1]) for e in edges), indexing="ij"), axis=-1).reshape(-1, 2)
    p, q = p.ravel(), q.ravel()
    if np.array_equal(p, q):
        return 0.0  # the solver returns round-off (1e-17) instead
    a, b = p > 0, q > 0
    if not a.any() or not b.any():
        return float("nan")
    cost = ot.dist(centres[a], centres[b], metric="euclidean")
    return float(ot.emd2(p[a] / p[a].sum(), q[b] / q[b].sum(), cost, numItermax=10_000_000))
