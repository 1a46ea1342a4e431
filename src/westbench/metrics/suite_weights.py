"""The model frames' weights under each weighting of the metric suite, and their re-estimate in a bootstrap resample.

Model frame weights: ``we`` (the exported WE weights), ``msm`` (grid-MSM stationary weights over the ground truth's
TIC 0/1 grid) or ``counts`` (every distinct conformation once). :class:`SuiteWeights` is a part of
:class:`westbench.metrics.suite.MetricSuite`: it reads the suite's frames (``model``), ``settings``, ``msm_grid``,
resampling units and the cache ``_weights`` that the suite's ``__init__`` sets up.
"""

from __future__ import annotations

import numpy as np

from westbench.io.canonical import CONFORMATION
from westbench.metrics.estimability import NotEstimable
from westbench.metrics.msm import grid_msm
from westbench.metrics.weighted import effective_sample_size, normalized

__all__ = ["WEIGHTINGS", "SuiteWeights"]

WEIGHTINGS = ("we", "msm", "counts")


class SuiteWeights:
    """The metric suite's model frame weights: per weighting, cached, and re-estimated per resample under ``msm``."""

    def weights(self, weighting: str) -> np.ndarray:
        """Model frame weights under ``weighting`` (we, msm, counts), normalized, cached; raises
        :class:`NotEstimable` when the weighting cannot be had from these frames.

        ``we``: the exported WE weights; ``counts``: every distinct conformation counts once (copies of a row are
        one conformation, weightless rows none: :mod:`westbench.io.canonical`); ``msm``: the stationary
        distribution of the grid MSM over the ground truth's TIC 0/1 grid (:func:`westbench.metrics.msm.grid_msm`;
        its diagnostics in :attr:`msm`).
        """
        if weighting not in self._weights:
            frames = self.model
            if weighting == "we":
                weights = np.asarray(frames["weight"], dtype=np.float64)
            elif weighting == "counts":
                weights = np.ones(len(frames["ca"]))
            elif weighting == "msm":
                self.msm = grid_msm(
                    frames["tics"],
                    frames["traj"],
                    self.msm_grid,
                    self.settings.msm_lag,
                    time=frames.get("time_ps"),
                )
                weights = self.msm.weights
            else:
                raise ValueError(f"weighting must be one of {WEIGHTINGS}, got {weighting!r}")
            total = float(np.sum(weights))
            if not np.isfinite(total) or total <= 0 or np.any(np.asarray(weights) < 0):
                raise NotEstimable(f"the {weighting} weights are not a distribution (sum {total:.3g})")
            self._weights[weighting] = normalized(weights)
        return self._weights[weighting]

    def effective_frames(self, weighting: str) -> float:
        """Kish's effective sample size of the model's frames under ``weighting``: how many equally weighted frames
        carry the same information (:func:`westbench.metrics.weighted.effective_sample_size`; a conformation counted
        once, its weights summed)."""
        return effective_sample_size(self.weights(weighting), self.model.get(CONFORMATION))

    def resampled_msm_weights(self, multiplicity: np.ndarray) -> np.ndarray | None:
        """The model's frame weights under the ``msm`` weighting in one resample of its units (``multiplicity``: how
        many times each unit was drawn): the grid MSM re-estimated from the resample (a unit drawn k times is k
        pieces, its transitions counted k times), each frame's share times its unit's multiplicity. None where the
        resample gives no MSM (its replicate fails and is counted as such)."""
        multiplicity = np.rint(np.asarray(multiplicity)).astype(np.int64)
        units, traj = self.model_units, np.asarray(self.model["traj"])
        copies = multiplicity[units]
        index = np.repeat(np.arange(len(units)), copies)
        # The k-th copy of a frame lies in a piece of its own: piece ids shifted by k times the id span.
        copy = np.arange(len(index)) - np.repeat(np.cumsum(copies) - copies, copies)
        pieces = traj[index] + copy * (int(traj.max()) + 1)
        time = self.model.get("time_ps")
        try:
            msm = grid_msm(  # the arrays weights("msm") reads, so all ones gives its weights exactly
                np.asarray(self.model["tics"])[index],
                pieces,
                self.msm_grid,
                self.settings.msm_lag,
                None if time is None else np.asarray(time)[index],
            )
        except NotEstimable:
            return None
        weights = np.bincount(index, msm.weights, minlength=len(units))
        return weights / weights.sum()
