"""The metric suite's KL rows by nearest neighbours (:class:`SuiteKL`, one :class:`westbench.metrics.kl.VariableKL`
per distribution), and the marks of a KL value that is no score (:func:`kl_mark`).

Examples
--------
>>> kl_mark(15.5, 15.7, floored_share=0.9)[0]
'pinned'
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from westbench.config import default
from westbench.errors import WestbenchError
from westbench.metrics.kl import NEIGHBOURS, QUERY_POINTS, VariableKL, prepared
from westbench.metrics.neighbour_lists import Layout, Side
from westbench.metrics.settings import MetricSettings

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
    settings: MetricSettings,
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
    method = settings.kl_estimator
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
        int(settings.kl_neighbours),
        int(settings.kl_query_points),
        float(settings.kl_floor),
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
      it (upper bound minus median); or the floor's upper bound is 0, the KL's bound (the nearest-neighbour
      estimate is clipped there, its raw value below it): such a floor shows nothing of the noise, and a verdict
      against it would call any positive value separated, the ground truth against itself included.

    Examples
    --------
    >>> kl_mark(15.5, 15.7, floored_share=0.9)[0], kl_mark(0.03, 0.2)[0], kl_mark(0.2, 0.27)[0], kl_mark(0.0, 0.0)[0]
    ('pinned', '', 'bias', 'bias')
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
    if floor_high is not None and floor_high <= 0.0:
        return BIASED, (
            "the noise floor (the ground truth against itself at this sample size) reads 0 up to its upper bound, "
            "the KL's bound (the nearest-neighbour estimate is clipped there): it shows nothing of the estimator's "
            "noise, so no value can be told from noise against it (more ground-truth runs and model frames)"
        )
    if floor_value is not None and floor_high is not None and floor_value > floor_high - floor_value:
        return BIASED, (
            f"the estimator's bias exceeds its noise at this sample size: the ground truth against itself reads "
            f"{floor_value:.3g} (its value at zero divergence), more than that reading's spread "
            f"({floor_high - floor_value:.3g}); the value is mostly bias, not divergence (more ground-truth runs and "
            "model frames lower it; docs/scoring.md, KL estimators against known answers)"
        )
    return "", ""
