"""Divergences between the ground truth and a model, for 1-D and 2-D distributions.

Conventions (pitfalls of the published code, the published WE benchmark, arXiv:2510.17187):
- KL is always KL(ground truth || model): the reference comes first.
- Empty model bins where the ground truth has mass get the configured ``floor``
  probability; tables state the floor.
- Every grid is fixed from the ground truth's range, with overflow cells around it
  (:mod:`westbench.metrics.binning`): a model sample far outside it can never stretch the grid
  and so flatter itself.

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
from westbench.metrics.binning import ReferenceBins, ReferenceGrid2D
from westbench.metrics.weighted import normalized
from westbench.runtime.without_torch import import_without_torch


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
    its sorts done once: the suite scores each pair of samples under several
    weightings (WE, MSM, counts), and the sorts dominate its time otherwise. One
    stable sort of the pooled values gives both samples' orders and their CDF
    positions (the count of each sample's values up to each pooled value), where
    scipy sorts three times and searches twice. Within a run of tied pooled values
    the counts differ from scipy's, but those positions have zero width.

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
        pooled = np.concatenate((reference, model))
        order = np.argsort(pooled, kind="stable")
        from_reference = order < len(reference)
        self._sorters = (order[from_reference], order[~from_reference] - len(reference))
        self._deltas = np.diff(pooled[order])
        self._cdf_indices = (np.cumsum(from_reference)[:-1], np.cumsum(~from_reference)[:-1])

    @property
    def orders(self) -> tuple[np.ndarray, np.ndarray]:
        """The ascending order of the reference's and of the model's flattened values (stable)."""
        return self._sorters

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


def floored_share(p: np.ndarray, q: np.ndarray, floor: float) -> float:
    """The share of :func:`kl_from_histograms` (p || q) that comes from cells where ``q`` is read at the floor (p has
    mass, q less than ``floor``; above 1 where the other cells' terms are negative): above one half the value measures
    the floor, not the divergence. NaN where the KL is not positive.

    Examples
    --------
    >>> round(floored_share([0.5, 0.5], [1.0, 0.0], 1e-8), 2)  # one cell empty: 0.5 log(0.5 / 1e-8) of 8.6
    1.04
    >>> floored_share([0.5, 0.5], [0.4, 0.6], 1e-8)
    0.0
    """
    p, q = np.ravel(np.asarray(p, dtype=np.float64)), np.ravel(np.asarray(q, dtype=np.float64))
    p_total, q_total = p.sum(), q.sum()
    if not (p_total > 0 and q_total > 0):
        return float("nan")
    p, q = p / p_total, q / q_total
    floored = (p > 0) & (q < np.minimum(floor, p))
    total = kl_from_histograms(p, q, floor)
    if not total > 0:
        return float("nan")
    part = np.sum(p[floored] * np.log(p[floored] / np.minimum(floor, p[floored])))
    return float(part / total)


def w1_from_histograms(
    p: np.ndarray, q: np.ndarray, edges: np.ndarray, periodic: bool = False, p_excess=None, q_excess=None
) -> np.ndarray:
    """W1 of each row of two (batch, cells) histograms on a :class:`~westbench.metrics.binning.TransportGrid`.

    In range a cell's mass sits at its lower edge. Without ``periodic`` the first and last cells are the
    grid's overflow cells, and ``p_excess``, ``q_excess`` ((batch, 2): the summed distances of the mass below
    and above the range, :meth:`~westbench.metrics.binning.TransportGrid.excess`) give their share of W1,
    exactly when only one side has mass out there (the ground truth never has: the grid spans its range);
    mass far out costs its distance. On a circle (``periodic``, equal cells, no overflow) the CDF
    difference is shifted by its median before integrating: the circular W1 of :class:`CircularWasserstein1D`.

    Examples
    --------
    >>> edges = np.array([0.0, 1.0, 2.0, 3.0])
    >>> w1_from_histograms(np.array([[0, 1.0, 0, 0, 0]]), np.array([[0, 0, 0, 1.0, 0]]), edges).tolist()
    [2.0]
    >>> far = np.array([[0.0, 0.0, 0.0, 0.0, 1.0]])  # all of the model's mass 47 above the range's top, 3
    >>> w1_from_histograms(np.array([[0, 0, 0, 1.0, 0]]), far, edges, q_excess=np.array([[0.0, 47.0]])).tolist()
    [48.0]
    """
    p, q = np.atleast_2d(np.asarray(p, dtype=np.float64)), np.atleast_2d(np.asarray(q, dtype=np.float64))
    p_total, q_total = p.sum(axis=-1, keepdims=True), q.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        difference = np.cumsum(p, axis=-1) / p_total - np.cumsum(q, axis=-1) / q_total
    widths = np.diff(np.asarray(edges, dtype=np.float64))
    if periodic:
        difference = difference - np.median(difference, axis=-1, keepdims=True)
        return np.abs(difference) @ widths
    inside = np.abs(difference[..., 1:-1]) @ widths
    zero = np.zeros((len(p), 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        p_out = (zero if p_excess is None else np.atleast_2d(p_excess)) / p_total
        q_out = (zero if q_excess is None else np.atleast_2d(q_excess)) / q_total
    return inside + np.abs(p_out - q_out).sum(axis=-1)


def w1_2d_from_histograms(p: np.ndarray, q: np.ndarray, p_moments: np.ndarray, q_moments: np.ndarray) -> np.ndarray:
    """W1 (Euclidean ground cost, exact optimal transport, POT) of each row of two (batch, cells) 2-D histograms
    whose mass in each cell sits at its centroid: ``*_moments`` (batch, cells, 2), the weighted sums of the
    coordinates per cell.

    Mass in the overflow cells of a :class:`~westbench.metrics.binning.ReferenceGrid2D` sits where it lies,
    however far out, so it can never be cheaper than the same mass nearer. NaN where either histogram is empty.

    Examples
    --------
    >>> p, q = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])
    >>> w1_2d_from_histograms(p, q, np.array([[[0.0, 0.0], [0.0, 0.0]]]), np.array([[[0.0, 0.0], [3.0, 4.0]]])).tolist()
    [5.0]
    """
    ot = import_without_torch("ot")

    p, q = np.atleast_2d(np.asarray(p, dtype=np.float64)), np.atleast_2d(np.asarray(q, dtype=np.float64))
    out = np.full(len(p), np.nan)
    for i, (a, b) in enumerate(zip(p, q)):
        if a.sum() <= 0 or b.sum() <= 0:
            continue
        ia, ib = a > 0, b > 0
        xa, xb = p_moments[i][ia] / a[ia, None], q_moments[i][ib] / b[ib, None]
        if np.array_equal(ia, ib) and np.allclose(a / a.sum(), b / b.sum(), rtol=0, atol=1e-15):
            if np.allclose(xa, xb, rtol=0, atol=1e-12):
                out[i] = 0.0  # the solver returns round-off (1e-17) instead
                continue
        # Differences, not POT's |x|^2 + |y|^2 - 2 x.y (cancellation: 1e-8 errors that moved W1 by 1e-9 of itself when
        # every weight was multiplied by 1000).
        cost = np.sqrt(((xa[:, None, :] - xb[None, :, :]) ** 2).sum(axis=-1))
        out[i] = ot.emd2(a[ia] / a[ia].sum(), b[ib] / b[ib].sum(), cost, numItermax=10_000_000)
    return out


def kl_1d(
    reference,
    model,
    reference_weights=None,
    model_weights=None,
    bins: int = default("metrics.bins"),
    floor: float = default("metrics.kl_floor"),
) -> float:
    """KL(ground truth || model) of two weighted 1-D samples on ``bins`` bins over the ground truth's range, with an
    overflow bin on each side (:class:`~westbench.metrics.binning.ReferenceBins`)."""
    grid = ReferenceBins.from_reference(reference, bins)
    return kl_from_histograms(
        grid.histogram(reference, _weights(reference_weights, reference)),
        grid.histogram(model, _weights(model_weights, model)),
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
    """KL(ground truth || model) of two weighted (n, 2) samples on a ``bins`` x ``bins`` grid over the ground truth's
    range, with overflow cells (:class:`~westbench.metrics.binning.ReferenceGrid2D`)."""
    reference, model = np.asarray(reference, dtype=np.float64), np.asarray(model, dtype=np.float64)
    grid = ReferenceGrid2D.from_reference(reference[:, :2], bins)
    p = np.bincount(grid.index(reference), _weights(reference_weights, reference[:, 0]), minlength=grid.n_cells)
    q = np.bincount(grid.index(model), _weights(model_weights, model[:, 0]), minlength=grid.n_cells)
    return kl_from_histograms(p, q, floor)


def wasserstein_2d(reference, model, reference_weights=None, model_weights=None, bins: int = 50) -> float:
    """Wasserstein-1 between two weighted (n, 2) samples, exact optimal transport (POT) between their histograms.

    Both samples are binned on a ``bins`` x ``bins`` grid over the ground truth's range (with overflow cells);
    each cell's mass moves from its centroid at Euclidean cost, so the value is accurate to about one cell
    width and mass outside the range costs as far as it lies (:func:`w1_2d_from_histograms`).

    Examples
    --------
    >>> import numpy as np
    >>> a = np.zeros((10, 2)); b = np.column_stack([np.ones(10), np.zeros(10)])
    >>> round(wasserstein_2d(np.vstack([a, b]), np.vstack([a, b]) + [0.0, 2.0], bins=100), 1)  # shifted by 2
    2.0
    """
    reference, model = np.asarray(reference, dtype=np.float64), np.asarray(model, dtype=np.float64)
    grid = ReferenceGrid2D.from_reference(reference[:, :2], bins)
    p, p_moments = grid.histogram_with_moments(reference, _weights(reference_weights, reference[:, 0]))
    q, q_moments = grid.histogram_with_moments(model, _weights(model_weights, model[:, 0]))
    return float(w1_2d_from_histograms(p, q, p_moments[None], q_moments[None])[0])


def _weights(weights, values) -> np.ndarray:
    """Normalized weights of a sample (uniform when None), one per row of ``values``."""
    return np.full(len(values), 1.0 / max(len(values), 1)) if weights is None else normalized(weights)
