"""The data of every figure, computed once per job and handed to each registered figure's function.

:class:`EngineFigureData` is what rule ``metrics`` draws from (one engine against the ground truth; the model's
MSM weights are the suite's, :meth:`westbench.metrics.suite.MetricSuite.weights`, computed at most once);
:class:`ProteinFigureData` what rule ``protein_figures`` draws from (every engine of one protein).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable, Mapping

import numpy as np

from westbench.config import default
from westbench.metrics.estimability import Caveats
from westbench.metrics.settings import MetricSettings
from westbench.metrics.weighted import normalized


@dataclass
class EngineFigureData:
    """One engine's figure data. ``settings``: the suite's (the figures read ``bins``, ``density``,
    ``kde_bandwidth``, ``scatter_max_points``, ``seed``, ``msm_bins``, ``msm_lag``)."""

    groundtruth_tics: np.ndarray
    groundtruth_weights: np.ndarray
    model: Mapping  # the model's frames (``traj``, ``weight``, ``iteration`` where it has them)
    model_tics: np.ndarray
    weights: np.ndarray  # the model's frame weights of the figures' weighting
    values: Mapping  # the suite's scores of that weighting
    labels: Mapping  # macrostates of the ground truth and of the model
    distributions: tuple[Mapping, Mapping]  # the suite's (reference, sample) per-frame values
    settings: MetricSettings
    label: str = "model"
    msm: Callable[[], np.ndarray] | None = None  # the suite's MSM weights (computed on first use when None)

    @classmethod
    def of(
        cls,
        groundtruth: Mapping,
        model: Mapping,
        weights: np.ndarray | None,
        values: Mapping,
        labels: Mapping,
        settings: MetricSettings | Mapping,
        label: str = "model",
        distributions: tuple[Mapping, Mapping] | None = None,
        caveats: Caveats | None = None,
        msm_weights: Callable[[], np.ndarray] | None = None,
    ) -> "EngineFigureData":
        """The data from the suite's inputs and results; ``weights`` None: uniform, with the caveat recorded."""
        model_tics = np.asarray(model["tics"], dtype=np.float64)
        if weights is None:
            weights = np.full(len(model_tics), 1.0 / len(model_tics))
            if caveats is not None:
                caveats.add("figures", "no weighting of the model could be estimated: the figures use raw counts")
        if distributions is None:
            from westbench.metrics.suite import distributions as compute

            distributions = (compute(groundtruth), compute(model))
        return cls(
            np.asarray(groundtruth["tics"], dtype=np.float64),
            normalized(groundtruth["weight"]),
            model,
            model_tics,
            weights,
            values,
            labels,
            distributions,
            MetricSettings.of(settings),
            label,
            msm_weights,
        )

    @property
    def iteration(self) -> np.ndarray:
        """The WE iteration of each model frame (zeros where the frames have none)."""
        return np.asarray(self.model["iteration"]) if "iteration" in self.model else np.zeros(len(self.model_tics))

    @property
    def raw_weights(self) -> np.ndarray:
        """The model's exported (WE) weights, ones where it has none."""
        return self.model["weight"] if "weight" in self.model else np.ones(len(self.model_tics))

    @cached_property
    def msm_weights(self) -> np.ndarray:
        """The model's grid-MSM frame weights: the suite's (:attr:`msm`), else the same estimate made here once;
        raises :class:`~westbench.metrics.estimability.NotEstimable` when the frames give no MSM."""
        if self.msm is not None:
            return self.msm()
        from westbench.metrics.msm import grid_msm_weights, msm_grid

        grid = msm_grid(self.groundtruth_tics, self.settings.msm_bins)
        time = self.model["time_ps"] if "time_ps" in self.model else None
        return grid_msm_weights(self.model_tics, self.model["traj"], grid, self.settings.msm_lag, time)


@dataclass
class ProteinFigureData:
    """One protein's engines: ``engines`` {engine: (tics, weights)}, ``costs`` {engine: its ``cost.csv``
    frame}, ``bins`` of the TIC 0/1 histograms, the coverage ``thresholds`` and whether compute is GPU time."""

    groundtruth_tics: np.ndarray
    groundtruth_weights: np.ndarray
    engines: Mapping[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    costs: Mapping = field(default_factory=dict)
    bins: int = default("metrics.bins")
    thresholds: tuple = (0.2, 0.5, 0.8)
    gpu: bool = False
