"""Every statistic of the metric suite under given model weights: the estimates, their bootstrap intervals and the
noise floor they are judged against.

A statistic is a row of :attr:`westbench.metrics.resampling.BinnedDivergences.keys` (a W1 or KL of one
distribution). Its estimate is the whole data's (the 1-D W1 exact, KL and 2-D W1 on their grids); its interval a BCa
interval over resampled independent units (:mod:`westbench.metrics.intervals`), shifted onto the estimate; its floor
the ground truth against itself at the model's effective sample size (:mod:`westbench.metrics.noise_floor`). Under
the ``msm`` weighting both re-estimate the grid MSM in every replicate and pseudo-model, so they hold its estimation
error. :class:`SuiteStatistics` is a part of :class:`westbench.metrics.suite.MetricSuite`: it reads the grids, units,
KL rows (``binned``, ``knn``), exact W1 (``w1``) and the floor cache (``_floors``) that the suite's ``__init__`` sets
up, and the model weights of :class:`westbench.metrics.suite_weights.SuiteWeights`.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from westbench.metrics.estimability import NotEstimable
from westbench.metrics.intervals import MIN_UNITS, unit_bootstrap
from westbench.metrics.msm import grid_msm
from westbench.metrics.noise_floor import NoiseFloor, noise_floor, pseudo_model_units
from westbench.seeds import derive_seed

__all__ = ["SuiteStatistics"]


class SuiteStatistics:
    """The metric suite's statistics: estimates, bootstrap intervals and noise floors, on the suite's grids."""

    @cached_property
    def groundtruth_unit_frames(self) -> np.ndarray:
        """Frames in each ground-truth unit (the floor's splits and the verdicts' size checks read it)."""
        return np.bincount(self.groundtruth_units, minlength=self.n_groundtruth_units)

    def model_histograms(self, weights: np.ndarray) -> dict:
        """Per-unit histograms of the model under ``weights`` on the suite's grids."""
        return self.binned.histograms(
            self.sample, np.asarray(self.model["tics"])[:, :2], weights, self.model_units, self.n_model_units
        )

    def estimates(self, weights: np.ndarray, histograms: dict | None = None) -> np.ndarray:
        """Every statistic (:attr:`BinnedDivergences.keys` order) of the whole data: 1-D W1 exact, KL and 2-D W1 on
        their grids (``histograms``: the model's :meth:`model_histograms` under ``weights``, when already made)."""
        gt_ones = np.ones((1, self.n_groundtruth_units))
        model_ones = np.ones((1, self.n_model_units))
        histograms = self.model_histograms(weights) if histograms is None else histograms
        values = self.statistic(weights, histograms)([gt_ones, model_ones])[:, 0]
        for i, (metric, name) in enumerate(self.binned.keys):
            if metric == "w1" and name in self.w1:
                ref_w = np.repeat(self.groundtruth_weights, self.reference[name].shape[1])
                mod_w = np.repeat(weights, self.sample[name].shape[1])
                values[i] = self.w1[name](ref_w, mod_w)
        return values

    def divergences(self, weights: np.ndarray) -> dict:
        """W1 and KL of every distribution under the model's frame ``weights`` (normalized, as :meth:`weights`
        gives them): {metric: {distribution: value}}."""
        out: dict = {"w1": {}, "kl": {}}
        for (metric, name), value in zip(self.binned.keys, self.estimates(weights)):
            out[metric][name] = float(value)
        return out

    def noise_floor(self, effective_frames: float | None = None, weighting: str = "we") -> NoiseFloor:
        """The noise floor of every statistic at the model's effective sample size (the model's frame count when
        not given), cached per pseudo-model size; raises :class:`NotEstimable` with the reason.

        Under a weighting that re-estimates the model's weights (``msm``) each pseudo-model is reweighted the same
        way (:meth:`msm_split_halves`): the floor then holds that estimate's error at the model's size, which a
        perfect engine's score holds too (and the intervals re-estimate it in every replicate:
        :meth:`msm_statistic`)."""
        unit_frames = self.groundtruth_unit_frames
        size = len(self.model["ca"]) if effective_frames is None else effective_frames
        k = pseudo_model_units(unit_frames, size) if len(unit_frames) >= 2 else 0
        key = (weighting, k) if weighting == "msm" else k
        if key not in self._floors:
            self._floors[key] = noise_floor(
                self.msm_split_halves if weighting == "msm" else self.split_halves,
                unit_frames,
                size,
                int(self.settings.floor_splits),
                derive_seed(int(self.settings.seed), "noise_floor"),
                self.more_runs,
            )
        return self._floors[key]

    def statistic(self, weights: np.ndarray, histograms: dict):
        """The bootstrap statistic of every row under the model's frame ``weights``: the binned one
        (:meth:`BinnedDivergences.statistic`), its KL rows by nearest neighbours unless ``kl_estimator`` is
        ``histogram``."""
        binned = self.binned.statistic(histograms)
        return binned if self.knn is None else self.knn.statistic(binned, weights)

    def split_halves(self, subsets: np.ndarray) -> np.ndarray:
        """The noise floor's split divergences of every row (:meth:`BinnedDivergences.split_halves`, KL rows as in
        :meth:`statistic`)."""
        if self.knn is None:
            return self.binned.split_halves(subsets)
        return self.knn.split_halves(self.binned.split_halves)(subsets)

    def msm_split_halves(self, subsets: np.ndarray) -> np.ndarray:
        """The noise floor's splits under the msm weighting: as :meth:`split_halves`, each pseudo-model's frames
        weighted by the grid MSM of those frames alone (on the model's grid and lag), as an engine's are; NaN for a
        split whose MSM cannot be estimated. Raises :class:`NotEstimable` when none can."""
        gt, lag = self.groundtruth, self.settings.msm_lag
        tics, traj = np.asarray(gt["tics"], dtype=np.float64), np.asarray(gt["traj"])
        time = None if gt.get("time_ps") is None else np.asarray(gt["time_ps"], dtype=np.float64)
        out = np.full((len(self.binned.keys), len(subsets)), np.nan)
        reasons = []
        for j, subset in enumerate(np.asarray(subsets, dtype=np.float64)):
            chosen = subset[self.groundtruth_units] > 0
            try:
                msm = grid_msm(tics[chosen], traj[chosen], self.msm_grid, lag, None if time is None else time[chosen])
            except NotEstimable as exc:
                reasons.append(str(exc))
                continue
            weights = np.zeros(len(chosen))
            weights[chosen] = msm.weights
            out[:, j] = self.reweighted_split(1.0 - subset, weights)
        if len(reasons) == len(out[0]):
            raise NotEstimable(f"the grid MSM of no pseudo-model of the ground truth could be estimated: {reasons[0]}")
        return out

    def msm_statistic(self):
        """The bootstrap statistic under the ``msm`` weighting: in each replicate the model's weights re-estimated
        (:meth:`resampled_msm_weights`) and every statistic computed against the resampled ground truth; NaN for a
        replicate without an MSM."""
        model_ones = np.ones((1, self.n_model_units))

        def compute(multiplicities):
            groundtruth, model = multiplicities
            out = np.full((len(self.binned.keys), len(model)), np.nan)
            for b, (gt_b, model_b) in enumerate(zip(groundtruth, model)):
                weights = self.resampled_msm_weights(model_b)
                if weights is not None:  # the model's multiplicities are in its weights
                    histograms = self.model_histograms(weights)
                    out[:, b] = self.statistic(weights, histograms)([gt_b[None, :], model_ones])[:, 0]
            return out

        return compute

    def reweighted_split(self, rest: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """Every statistic of the ground truth's ``rest`` units ((n_units,) multiplicities, its own weights) against
        its frames under ``weights`` (per frame; 0 outside the pseudo-model)."""
        gt_tics = np.asarray(self.groundtruth["tics"], dtype=np.float64)[:, :2]
        one = np.zeros(len(weights), dtype=np.int64)
        q = self.binned.histograms(self.reference, gt_tics, weights, one, 1)
        p = {key: rest[None, :] @ value for key, value in self.binned.reference_histograms.items()}
        values = self.binned.divergences(p, q)[:, 0]
        return values if self.knn is None else self.knn.reweighted_split(values, rest, weights)

    def largest_reachable(self) -> np.ndarray:
        """Per statistic, the largest value any model could score against this ground truth (inf for W1): the KL
        of a model with all its mass off the ground truth's cells. A floor at or above it cannot be cleared."""
        out = np.full(len(self.binned.keys), np.inf)
        for i, (metric, name) in enumerate(self.binned.keys):
            if metric == "kl" and self.knn is not None:  # every ground-truth point's model density at the floor
                out[i] = self.knn.largest(name)
            elif metric == "kl":
                p = self.binned.reference_histograms[(metric, name)].sum(axis=0)
                p = p[p > 0] / p.sum()
                out[i] = float(np.sum(p * np.log(p / np.minimum(self.binned.floor, p))))
        return out

    def intervals(
        self, weights: np.ndarray, estimates: np.ndarray, histograms: dict | None = None, reestimated: bool = False
    ):
        """BCa intervals of every statistic (:class:`westbench.metrics.intervals.BootstrapResult`, shifted onto the
        exact estimates); raises :class:`NotEstimable` when there are too few units or no replicates.

        ``reestimated``: the model's weights are the grid MSM's (the ``msm`` weighting), re-estimated in every
        replicate from the resampled units' transitions (:meth:`msm_statistic`), so the interval holds the MSM's
        estimation error as the msm noise floor does."""
        replicates = int(self.settings.bootstrap)
        if replicates < 2:
            raise NotEstimable(f"metrics.bootstrap is {replicates}: no intervals")
        if self.n_groundtruth_units < MIN_UNITS or self.n_model_units < MIN_UNITS:
            raise NotEstimable(
                f"an interval needs at least {MIN_UNITS} independent units on each side: the ground "
                f"truth has {self.groundtruth_unit_kind}, the model {self.model_unit_kind} (ground truth: "
                f"{self.more_runs}; model: independent WE replicas, we.replicas_by_engine, or more iterations)"
            )
        if reestimated:
            statistic = self.msm_statistic()
        else:
            statistic = self.statistic(weights, self.model_histograms(weights) if histograms is None else histograms)
        result = unit_bootstrap(
            statistic,
            [self.n_groundtruth_units, self.n_model_units],
            replicates,
            derive_seed(int(self.settings.seed), "bootstrap"),
            lowest=0.0,  # every statistic is a divergence
        )
        shift = np.where(np.isfinite(estimates) & np.isfinite(result.estimate), estimates - result.estimate, 0.0)
        # The shift may carry a bound that stopped at 0 below it (the binned W1 above the exact one): bounds stop at 0.
        result.low, result.high, result.estimate = np.maximum(result.low + shift, 0.0), result.high + shift, estimates
        return result
