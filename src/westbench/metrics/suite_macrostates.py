"""The metric suite's macrostates: the ground truth's metastable states, every frame's assignment, and how the model's
weight over them compares with the ground truth's.

:class:`SuiteMacrostates` is a part of :class:`westbench.metrics.suite.MetricSuite`: it reads the suite's frames,
``settings``, ``caveats``, ``groundtruth_weights`` and shared ``macrostate_model`` (rule ``macrostates``) that the
suite's ``__init__`` sets up, and the model weights of :class:`westbench.metrics.suite_weights.SuiteWeights`.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from westbench.metrics.estimability import NotEstimable
from westbench.metrics.metastable import OUTSIDE, UNASSIGNED, MacrostateEstimator

__all__ = ["SuiteMacrostates"]


class SuiteMacrostates:
    """The metric suite's macrostates and the populations of each under a weighting."""

    def macrostates(self) -> dict:
        """Ground-truth macrostates and every frame's assignment: the protein's shared model when given, else
        fitted here (KMeans, MSM, PCCA+; seeded).

        Model frames are assigned to the nearest ground-truth cluster, so populations compare
        state by state.
        """
        s = self.settings
        model = self.macrostate_model
        if model is None:
            model = MacrostateEstimator(s.macrostate_clusters, s.macrostates, s.msm_lag, s.macrostate_dim, s.seed).fit(
                self.groundtruth["tics"], self.groundtruth["traj"], self.groundtruth.get("time_ps")
            )
        if model.n_macrostates == 0:
            self.caveats.add("macrostates", model.why or "no MSM could be fitted over the ground truth's clusters")
        return {
            "groundtruth": model.assign(self.groundtruth["tics"]),
            "model": model.assign(self.model["tics"]),
            "n_macrostates": model.n_macrostates,
        }

    def macrostate_populations(self, labels: Mapping, weighting: str = "we") -> dict:
        """Weighted population of each macrostate (ground truth and model) and their total variation distance (None
        when there are no macrostates or the weighting is not estimable).

        The distance runs over the macrostates and two more categories: ``unassigned`` (clusters outside the
        cluster MSM's connected set) and ``outside`` (frames beyond the ground truth's range,
        :data:`westbench.metrics.msm.OUTSIDE`), so no model mass is dropped before comparing, and mass far
        away, where the ground truth has none, can only add to it.
        """
        n = labels["n_macrostates"]
        try:
            weights = self.weights(weighting)
        except NotEstimable:
            weights = None
        if n == 0 or weights is None:
            return {"groundtruth": [], "model": [], "total_variation": None}

        def shares(assigned, frame_weights):
            category = np.where(assigned == UNASSIGNED, n, np.where(assigned == OUTSIDE, n + 1, assigned))
            mass = np.bincount(category, frame_weights, minlength=n + 2)
            return mass / mass.sum() if mass.sum() > 0 else mass

        reference, model = shares(labels["groundtruth"], self.groundtruth_weights), shares(labels["model"], weights)
        if reference.sum() <= 0 or model.sum() <= 0:
            self.caveats.add(f"{weighting}/macrostates", "no weight in any macrostate")
            return {"groundtruth": [], "model": [], "total_variation": None}
        return {
            "groundtruth": reference[:n].round(6).tolist(),
            "model": model[:n].round(6).tolist(),
            "groundtruth_unassigned": round(float(reference[n]), 6),
            "model_unassigned": round(float(model[n]), 6),
            "model_outside": round(float(model[n + 1]), 6),
            "total_variation": float(0.5 * np.abs(reference - model).sum()),
        }
