"""Bias-corrected and accelerated (BCa) bootstrap intervals over independent units of several samples.

A divergence between two samples is biased upward (noise alone makes it positive), so a
percentile interval can lie wholly above its own estimate, and a basic interval below zero.
BCa (Efron 1987; Efron and Tibshirani 1993, ch. 14) corrects the percentiles for the
bootstrap's median bias (``z0``) and skewness (the acceleration ``a``, from a jackknife over
each sample's units), as ``scipy.stats.bootstrap(method="BCa")`` does for several samples.

The units are what is independent (ground-truth runs, WE replicas or blocks of contiguous
iterations): a replicate is a vector of multiplicities per unit, so a statistic is computed
from per-unit summaries without copying frames. A replicate whose statistic is not finite
(a resample with no weight) is counted as failed and left out, never fatal.

BCa's median-bias correction ``z0`` is the share of replicates below the estimate, ties counted half. A replicate
that resamples every unit once is the estimate itself, computed again: with 3 units a side about 1 in 20
replicates is one, and float rounding (weights times 1000, another order of summation) put each of them below,
equal or above the estimate at random, which moved bounds by up to 10 %. A replicate within :data:`TIE_TOLERANCE`
of the statistic's scale (the largest of |estimate| and |replicates|) is therefore a tie.

When the bootstrap lies entirely on one side of the estimate (``z0`` infinite) or the
corrected percentiles still exclude it, the bound is moved to the estimate and the interval
is marked ``extended``: a reported interval always contains its estimate.

BCa's correction extrapolates, and far from the bootstrap's middle it collapses: a divergence near 0 sits below
nearly every replicate (the replicates add noise, so they are biased upward), ``z0`` is large, and both corrected
percentiles land in the bootstrap's lowest tail (an estimate at the 4.5 % point of its replicates gave a 95 %
interval spanning the lowest 7.5 % of them: a quarter of their spread, excluding its own known answer). Where the
corrected percentiles span less than half the level (:data:`COLLAPSED_SHARE`), the interval is therefore never
narrower than the bootstrap's central spread on either side of the estimate (``collapsed``; a widened bound still
stops at ``lowest``).

A bootstrap over few units is too narrow: its variance is ``(n - 1) / n`` of the true one, and
its percentiles are normal ones where Student's t applies (with 4 units a 95 % interval holds
the true value about 80 % of the time). Each interval is therefore widened about its estimate
(:func:`small_sample_widening`): by ``sqrt(n / (n - 1))`` and ``t / z``, with the degrees of
freedom of the samples' jackknife variances combined as Welch and Satterthwaite do, the
several-sample form of Hesterberg's expanded percentile interval (Hesterberg 2015, The
American Statistician 69, 371). With tens of units on every side the factor is about 1.

Examples
--------
>>> import numpy as np
>>> x = np.random.default_rng(0).normal(5.0, 1.0, 50)
>>> def mean(multiplicities):
...     (m,) = multiplicities
...     return (m @ x / m.sum(axis=1))[None, :]
>>> result = unit_bootstrap(mean, [50], replicates=2000, seed=1)
>>> bool(result.low[0] < x.mean() < result.high[0]), bool(4.4 < result.low[0] < result.high[0] < 5.6)
(True, True)
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
from scipy.special import ndtr, ndtri, stdtrit

#: A statistic of multiplicities: one (replicates, n_units) array per sample -> (n_statistics, replicates).
Statistic = Callable[[Sequence[np.ndarray]], np.ndarray]

MIN_UNITS = 3  # fewer independent units than this per sample give no meaningful interval

#: Replicates within this share of a statistic's scale of its estimate are ties (float rounding, not information).
TIE_TOLERANCE = 1e-9
#: Jackknife deviations below this are rounding at any scale (nats, nm, degrees): a KL of 0 but for 2e-16 in one
#: left-out sample had a widening of 2.69, or none where weights times a constant rounded to exact zeros.
ROUNDING_FLOOR = 1e-12

#: BCa has collapsed where its corrected percentiles span less than this share of the level (see the module text).
COLLAPSED_SHARE = 0.5


@dataclass
class BootstrapResult:
    """Per statistic: the estimate, BCa bounds (widened for few units by ``widening``), bootstrap bias (mean
    replicate minus estimate), whether a bound was moved to the estimate, and the replicates that failed
    (non-finite) out of ``replicates``."""

    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    bias: np.ndarray
    extended: np.ndarray
    failed: np.ndarray
    replicates: int
    level: float
    widening: np.ndarray
    #: Where BCa's corrected percentiles collapsed and the bootstrap's central spread about the estimate was used.
    collapsed: np.ndarray | None = None


def multiplicities(rng: np.random.Generator, n_units: int, replicates: int) -> np.ndarray:
    """(replicates, n_units) counts of each unit in resamples of ``n_units`` drawn with replacement."""
    return rng.multinomial(n_units, np.full(n_units, 1.0 / n_units), size=replicates).astype(np.float64)


def jackknife_multiplicities(n_units: int, max_groups: int = 25) -> np.ndarray:
    """Multiplicities leaving out one unit each ((n_units, n_units)), or one of ``max_groups`` contiguous groups of
    units each when there are more units (the grouped jackknife: the acceleration from fewer evaluations)."""
    groups = np.array_split(np.arange(n_units), min(n_units, max_groups))
    out = np.ones((len(groups), n_units))
    for row, members in enumerate(groups):
        out[row, members] = 0.0
    return out


def tie_tolerance(replicates: np.ndarray, estimate: np.ndarray) -> np.ndarray:
    """Per statistic, how close to its estimate a value is a tie: :data:`TIE_TOLERANCE` times the statistic's scale
    (the largest of |estimate| and its finite |replicates|), at least :data:`ROUNDING_FLOOR` (KL 0 but for rounding)."""
    largest = np.max(np.where(np.isfinite(replicates), np.abs(replicates), 0.0), axis=1, initial=0.0)
    scale = np.fmax(largest, np.where(np.isfinite(estimate), np.abs(estimate), 0.0))
    return np.maximum(TIE_TOLERANCE * scale, ROUNDING_FLOOR)


def percentile_of_score(replicates: np.ndarray, estimate: np.ndarray) -> np.ndarray:
    """Share of finite replicates below each estimate, ties (within :func:`tie_tolerance`) counted half (scipy's
    convention).

    Examples
    --------
    >>> replicates = np.array([[1.0, 2.0, 2.0 + 4e-16, 3.0]])  # the middle two are the estimate, rounded apart
    >>> percentile_of_score(replicates, np.array([2.0])).tolist()
    [0.5]
    """
    finite = np.isfinite(replicates)
    tolerance = tie_tolerance(replicates, estimate)[:, None]
    distance = replicates - estimate[:, None]
    below = np.sum(finite & (distance < -tolerance), axis=1)
    ties = np.sum(finite & (np.abs(distance) <= tolerance), axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (below + 0.5 * ties) / finite.sum(axis=1)


def jackknife_deviations(jackknife: Sequence[np.ndarray], scale: np.ndarray | None = None) -> list[np.ndarray]:
    """Per sample, each statistic's jackknife values minus their mean, a deviation within :data:`TIE_TOLERANCE` of
    the statistic's scale (its largest finite |value| in any sample) taken as 0: jackknife values equal but for
    float rounding have no variance and no skew (their rounding noise gave a widening of 1.44 or none, and an
    acceleration of any size). ``scale``: a larger scale per statistic where known (its bootstrap replicates',
    :func:`tie_tolerance`); deviations below :data:`ROUNDING_FLOOR` are 0 whatever the scale.

    >>> [d.tolist() for d in jackknife_deviations([np.array([[1.0, 1.0 + 2e-16, 1.0], [1.0, 2.0, 3.0]])])]
    [[[0.0, 0.0, 0.0], [-1.0, 0.0, 1.0]]]
    """
    scale = np.zeros(len(jackknife[0]) if jackknife else 0) if scale is None else np.nan_to_num(scale, posinf=0.0)
    for values in jackknife:
        scale = np.fmax(scale, np.max(np.where(np.isfinite(values), np.abs(values), 0.0), axis=1, initial=0.0))
    out = []
    for values in jackknife:
        with warnings.catch_warnings():  # a statistic whose jackknife values are all NaN has no mean
            warnings.simplefilter("ignore", RuntimeWarning)
            deviation = values - np.nanmean(values, axis=1, keepdims=True)
        tolerance = np.maximum(TIE_TOLERANCE * scale, ROUNDING_FLOOR)[:, None]
        out.append(np.where(np.abs(deviation) <= tolerance, 0.0, deviation))
    return out


def acceleration(jackknife: Sequence[np.ndarray], scale: np.ndarray | None = None) -> np.ndarray:
    """BCa acceleration from each sample's jackknife values ((n_statistics, n_units) arrays), 0 where undefined
    (``scale``: :func:`jackknife_deviations`)."""
    numerator, denominator = 0.0, 0.0
    for values, deviation in zip(jackknife, jackknife_deviations(jackknife, scale)):
        n = values.shape[1]
        u = -(n - 1) * deviation
        numerator = numerator + np.nansum(u**3, axis=1) / n**3
        denominator = denominator + np.nansum(u**2, axis=1) / n**2
    with np.errstate(invalid="ignore", divide="ignore"):
        a = numerator / (6.0 * denominator**1.5)
    return np.where(np.isfinite(a), a, 0.0)


def small_sample_widening(
    jackknife: Sequence[np.ndarray], n_units: Sequence[int], level: float, scale: np.ndarray | None = None
) -> np.ndarray:
    """Factor (>= 1) by which to widen a bootstrap interval about its estimate for few units, per statistic.

    Sample ``j``'s share of the variance is its delete-a-group jackknife variance ``v_j`` (from ``g_j``
    groups: ``(g_j - 1) / g_j`` times the sum of squared deviations); a bootstrap over its ``n_j`` units
    sees ``(n_j - 1) / n_j`` of it. The factor is ``sqrt(sum v_j / sum v_j (n_j - 1) / n_j)`` times
    ``t_df / z`` at the interval's level, with Welch-Satterthwaite degrees of freedom
    ``df = (sum v_j)^2 / sum v_j^2 / (n_j - 1)``. 1 where the variance is 0 or undefined.

    Examples
    --------
    >>> import numpy as np
    >>> jackknife = [np.array([[1.0, 2.0, 3.0, 4.0]])]  # one statistic, 4 units
    >>> [round(float(f), 2) for f in small_sample_widening(jackknife, [4], 0.95)]
    [1.87]
    >>> jackknife = [np.array([[1.0, 2.0, 3.0, 4.0]]), np.zeros((1, 100))]  # a second sample adds no variance
    >>> [round(float(f), 2) for f in small_sample_widening(jackknife, [4, 100], 0.95)]
    [1.87]
    """
    total, seen, df_denominator = 0.0, 0.0, 0.0
    for values, deviation, n in zip(jackknife, jackknife_deviations(jackknife, scale), n_units):
        groups = values.shape[1]
        variance = (groups - 1) / groups * np.nansum(deviation**2, axis=1)
        total = total + variance
        seen = seen + variance * (n - 1) / n
        df_denominator = df_denominator + variance**2 / max(n - 1, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        df = total**2 / df_denominator
        factor = np.sqrt(total / seen) * stdtrit(df, (1 + level) / 2) / ndtri((1 + level) / 2)
    return np.where(np.isfinite(factor) & (factor > 1.0), factor, 1.0)


def bca_bounds(estimate: np.ndarray, replicates: np.ndarray, a: np.ndarray, level: float) -> tuple[np.ndarray, ...]:
    """BCa (low, high, collapsed) per statistic from its replicates ((n_statistics, replicates), NaN = failed).

    ``collapsed``: the corrected percentiles span less than :data:`COLLAPSED_SHARE` of ``level``; there the bounds
    reach at least half the replicates' central ``level`` spread below and above the estimate.

    >>> estimate = np.array([0.0104])
    >>> replicates = np.random.default_rng(0).gamma(4.0, 0.005, (1, 2000)) + 0.008  # nearly all above it
    >>> low, high, collapsed = bca_bounds(estimate, replicates, np.zeros(1), 0.95)
    >>> bool(collapsed[0]), bool(high[0] - low[0] > 0.9 * np.ptp(np.quantile(replicates, [0.025, 0.975])))
    (True, True)
    """
    z0 = ndtri(percentile_of_score(replicates, estimate))
    z = ndtri(np.array([(1 - level) / 2, (1 + level) / 2]))[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        shifted = z0 + z
        alpha = ndtr(z0 + shifted / (1 - a * shifted))  # (2, n_statistics)
    alpha = np.where(np.isnan(alpha), np.where(z < 0, 0.0, 1.0), alpha)  # z0 = +-inf: the extreme replicate
    collapsed = alpha[1] - alpha[0] < COLLAPSED_SHARE * level
    low, high = np.full(len(estimate), np.nan), np.full(len(estimate), np.nan)
    for i, row in enumerate(replicates):
        finite = row[np.isfinite(row)]
        if len(finite):
            low[i], high[i] = np.quantile(finite, np.clip(alpha[:, i], 0.0, 1.0))
            if collapsed[i] and np.isfinite(estimate[i]):
                spread = np.diff(np.quantile(finite, [(1 - level) / 2, (1 + level) / 2]))[0] / 2
                low[i], high[i] = min(low[i], estimate[i] - spread), max(high[i], estimate[i] + spread)
    return low, high, collapsed & np.isfinite(low)


def unit_bootstrap(
    statistic: Statistic,
    n_units: Sequence[int],
    replicates: int,
    seed: int,
    level: float = 0.95,
    batch: int = 50,
    lowest: float = -np.inf,
) -> BootstrapResult:
    """BCa intervals of every statistic of several samples, each resampled by its independent units, widened for
    few units (:func:`small_sample_widening`).

    Parameters
    ----------
    statistic : callable
        Takes one (batch, n_units_j) multiplicity array per sample and returns
        (n_statistics, batch): all ones is the estimate.
    n_units : sequence of int
        Units per sample; every sample needs at least :data:`MIN_UNITS` (checked by the caller).
    replicates, seed, level
        Bootstrap replicates, the seed of their draws, and the interval's level.
    batch : int
        Replicates per call of ``statistic`` (memory).
    lowest : float
        The smallest value a statistic can take (0 for a divergence): a widened bound stops there.
    """
    rng = np.random.default_rng(seed)
    estimate = np.asarray(statistic([np.ones((1, n)) for n in n_units]), dtype=np.float64)[:, 0]
    values = []
    for start in range(0, replicates, batch):
        size = min(batch, replicates - start)
        values.append(np.asarray(statistic([multiplicities(rng, n, size) for n in n_units]), dtype=np.float64))
    boot = np.concatenate(values, axis=1) if values else np.empty((len(estimate), 0))
    jackknife = []
    for j, n in enumerate(n_units):
        left_out = jackknife_multiplicities(n)
        samples = [np.ones((len(left_out), m)) for m in n_units]
        samples[j] = left_out
        jackknife.append(np.asarray(statistic(samples), dtype=np.float64))
    tolerance = tie_tolerance(boot, estimate) if boot.size else np.zeros(len(estimate))
    scale = tolerance / TIE_TOLERANCE  # the replicates' scale: rounding in the jackknife is judged against it
    low, high, collapsed = bca_bounds(estimate, boot, acceleration(jackknife, scale), level)
    finite = np.isfinite(estimate)
    extended = finite & np.isfinite(low) & ((estimate < low - tolerance) | (estimate > high + tolerance))
    low, high = np.where(finite, np.fmin(low, estimate), np.nan), np.where(finite, np.fmax(high, estimate), np.nan)
    widening = small_sample_widening(jackknife, n_units, level, scale)
    # A widened bound stops at ``lowest`` unless the bootstrap itself went beyond it (a collapsed interval's bound
    # is no replicate: its replicates' lowest says how far it may go).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        lowest_replicate = np.nanmin(np.where(np.isfinite(boot), boot, np.nan), axis=1) if boot.size else low
    floor = np.minimum(lowest, np.where(collapsed, lowest_replicate, low))
    low = np.maximum(estimate - widening * (estimate - low), floor) + 0.0  # + 0.0: no bound of -0.0
    high = estimate + widening * (high - estimate)
    failed = np.sum(~np.isfinite(boot), axis=1)
    with warnings.catch_warnings():  # a statistic whose every replicate failed has no mean: NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        bias = (
            np.nanmean(np.where(np.isfinite(boot), boot, np.nan), axis=1) - estimate
            if boot.size
            else np.full(len(estimate), np.nan)
        )
    return BootstrapResult(estimate, low, high, bias, extended, failed, replicates, level, widening, collapsed)
