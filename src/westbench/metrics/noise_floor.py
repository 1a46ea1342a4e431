"""The noise floor of every divergence, and the verdict of a model's value against it.

The floor is what the ground truth scores against itself at the model's sample size: its
runs are split into a pseudo-model of ``k`` runs (as many frames as the model has, at most
half the runs) and the rest, and every divergence of the rest against the pseudo-model is
computed for each split (all splits when there are few, else ``splits`` seeded draws). The
floor is their median, its range the central 95 %. A model whose divergence is inside that
range is as close to the ground truth as the ground truth is to itself. A weighting that
re-estimates the model's weights (``msm``) re-estimates the pseudo-model's the same way
(:meth:`westbench.metrics.suite.MetricSuite.msm_split_halves`), so its floor holds that error.

Verdict (one stated test): *separated* when the model's interval lies above the floor's
range (its lower bound above the floor's upper bound), else *within noise*; *undetermined*
when the interval or the floor could not be estimated.

Examples
--------
>>> subsets = floor_subsets(n_units=4, k=2, splits=100, seed=0)
>>> subsets.shape, subsets.sum(axis=1).tolist()  # all six ways of choosing two of four runs
((6, 4), [2.0, 2.0, 2.0, 2.0, 2.0, 2.0])
>>> verdict(0.8, 0.5), verdict(0.4, 0.5), verdict(float("nan"), 0.5)
('separated', 'within noise', 'undetermined')
"""

from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import dataclass

import numpy as np

from westbench.metrics.estimability import NotEstimable
from westbench.presentation.verdicts import VERDICTS

SEPARATED, WITHIN_NOISE, UNDETERMINED = VERDICTS  # the one vocabulary, shared with the report


@dataclass
class NoiseFloor:
    """Per statistic: the floor (median over splits) and its central-95 % range; the split design."""

    value: np.ndarray
    low: np.ndarray
    high: np.ndarray
    splits: int
    units: int  # ground-truth runs in the pseudo-model
    of_units: int


def pseudo_model_units(unit_frames: np.ndarray, model_frames: int) -> int:
    """Runs in the pseudo-model: about the model's frame count, at least one, at most half the runs (a count
    halfway between two is rounded to the even one, whatever float rounding did to it).

    >>> pseudo_model_units(np.full(10, 20), 50), pseudo_model_units(np.full(10, 20), 50 * (1 + 1e-15))
    (2, 2)
    """
    n = len(unit_frames)
    share = model_frames / max(float(np.sum(unit_frames)), 1.0)
    return int(min(max(1, round(round(n * share, 9))), n // 2))


def floor_subsets(n_units: int, k: int, splits: int, seed: int) -> np.ndarray:
    """(n_splits, n_units) 0/1 indicators of the pseudo-model's runs: every choice of ``k`` runs when there are
    at most ``splits`` of them, else ``splits`` seeded random choices."""
    if math.comb(n_units, k) <= splits:
        chosen = list(itertools.combinations(range(n_units), k))
    else:
        rng = np.random.default_rng(seed)
        chosen = [rng.choice(n_units, k, replace=False) for _ in range(splits)]
    subsets = np.zeros((len(chosen), n_units))
    for row, units in enumerate(chosen):
        subsets[row, list(units)] = 1.0
    return subsets


#: How to get more ground-truth runs, by where the runs came from (the ``runs_from`` frames attribute).
MORE_RUNS = {
    "import": "import more trajectories: each file of groundtruth.import.trajectories is one run",
    "mixed": "more starts in groundtruth.starts.count, or more files in groundtruth.import.trajectories",
}
MORE_STARTS = "more starts in groundtruth.starts.count"


def noise_floor(
    split_divergences, unit_frames: np.ndarray, model_frames: float, splits: int, seed: int, fix: str = MORE_STARTS
) -> NoiseFloor:
    """The floor of every statistic; ``split_divergences`` maps (n_splits, n_units) indicators to
    (n_statistics, n_splits) values (:meth:`westbench.metrics.resampling.BinnedDivergences.split_halves`);
    ``model_frames`` is the model's (effective) sample size; ``fix`` how to get more runs (:data:`MORE_RUNS`)."""
    n = len(unit_frames)
    if n < 2:
        raise NotEstimable(
            f"the ground truth has {n} run{'s' if n != 1 else ''}: a noise floor needs at least 2 to split ({fix})"
        )
    k = pseudo_model_units(unit_frames, model_frames)
    subsets = floor_subsets(n, k, splits, seed)
    values = np.asarray(split_divergences(subsets), dtype=np.float64)
    finite = np.where(np.isfinite(values), values, np.nan)
    with np.errstate(invalid="ignore"):
        if not np.isfinite(finite).any():
            raise NotEstimable("every split of the ground truth gave a non-finite divergence")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            low, median, high = np.nanpercentile(finite, [2.5, 50.0, 97.5], axis=1)
    return NoiseFloor(median, low, high, len(subsets), k, n)


def verdict(model_low: float, floor_high: float) -> str:
    """*separated* iff the model's lower bound is above the floor's upper bound; *undetermined* if either is missing."""
    if model_low is None or floor_high is None or not (np.isfinite(model_low) and np.isfinite(floor_high)):
        return UNDETERMINED
    return SEPARATED if model_low > floor_high else WITHIN_NOISE
