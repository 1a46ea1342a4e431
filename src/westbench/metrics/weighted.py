"""Weighted statistics of frames: normalized weights, histograms, a weighted Gaussian KDE.

Frame weights are WE weights (the default), MSM stationary weights or ones (raw
counts); every function here takes them explicitly.

Examples
--------
>>> import numpy as np
>>> normalized([1, 1, 2]).tolist()
[0.25, 0.25, 0.5]
>>> weighted_mean(np.array([1.0, 2.0, 3.0]), np.array([1, 1, 2]))
2.25
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import gaussian_kde


def normalized(weights) -> np.ndarray:
    """Weights scaled to sum to one (uniform when ``weights`` is None is the caller's job)."""
    weights = np.asarray(weights, dtype=np.float64)
    total = weights.sum()
    if not np.isfinite(total) or total <= 0:
        raise ValueError("weights must be finite, non-negative and not all zero")
    if weights.size and np.all(weights == weights.flat[0]):
        return np.full(weights.shape, 1.0 / weights.size)  # uniform is uniform, whatever the scale: bit for bit
    return weights / total


def effective_sample_size(weights, conformations=None) -> float:
    """Kish's effective sample size of frame weights, (sum w)^2 / sum w^2: how many equally weighted frames
    carry as much information (n for uniform weights, 1 when one frame holds all the weight).

    ``conformations`` (one label per frame, :data:`westbench.io.canonical.CONFORMATION`): frames that hold one
    conformation count as one, their weights summed. A conformation written again (at another time, in another
    piece) adds no information about the distribution: the sample size stays what it was.

    Examples
    --------
    >>> effective_sample_size([1, 1, 1, 1]), effective_sample_size([1, 0, 0, 0])
    (4.0, 1.0)
    >>> round(effective_sample_size([3, 1]), 2)
    1.6
    >>> effective_sample_size([0.5, 0.5, 1, 1], conformations=[0, 0, 1, 2])  # the first two: one conformation
    3.0
    """
    w = np.asarray(weights, dtype=np.float64)
    if conformations is not None and len(w):
        w = np.bincount(np.unique(np.asarray(conformations), return_inverse=True)[1], w)
    square = math.fsum(w**2)  # exact sums: the order of the frames never matters
    if not square > 0:
        return 0.0
    # To 10 significant digits: a sample size is no more precise, and float rounding (weights times a constant) then
    # never puts it on either side of a threshold it ties (6 effective frames against a minimum of 6).
    return float(f"{math.fsum(w) ** 2 / square:.10g}")


def weighted_mean(values: np.ndarray, weights=None, axis: int = 0) -> np.ndarray | float:
    """Mean of ``values`` along ``axis`` with frame weights."""
    values = np.asarray(values, dtype=np.float64)
    w = np.full(values.shape[axis], 1.0 / values.shape[axis]) if weights is None else normalized(weights)
    result = np.tensordot(w, values, axes=([0], [axis]))
    return float(result) if np.ndim(result) == 0 else result


def histogram(values: np.ndarray, edges: np.ndarray, weights=None) -> np.ndarray:
    """Probability of each bin (values outside the edges are dropped, then the rest renormalized)."""
    counts, _ = np.histogram(values, bins=edges, weights=None if weights is None else normalized(weights))
    total = counts.sum()
    return counts / total if total > 0 else counts.astype(np.float64)


def histogram2d(values: np.ndarray, edges: tuple[np.ndarray, np.ndarray], weights=None) -> np.ndarray:
    """Probability of each 2-D bin of (n, 2) ``values``."""
    counts, _, _ = np.histogram2d(
        values[:, 0], values[:, 1], bins=edges, weights=None if weights is None else normalized(weights)
    )
    total = counts.sum()
    return counts / total if total > 0 else counts


def kde(values: np.ndarray, grid: np.ndarray, weights=None, bandwidth: float | str | None = None) -> np.ndarray:
    """Weighted Gaussian KDE p(x) = sum_i w_i K_h(x - x_i) on ``grid`` (scipy; bandwidth as its bw_method)."""
    estimator = gaussian_kde(
        np.asarray(values, dtype=np.float64),
        bw_method=bandwidth,
        weights=None if weights is None else normalized(weights),
    )
    return estimator(grid)
