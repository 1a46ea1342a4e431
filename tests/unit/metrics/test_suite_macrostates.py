"""The metric suite's macrostates: the ground truth's states and the model's population of each."""

import numpy as np
import pytest

from westbench.metrics.suite import MetricSuite


def two_states(seed, hopping=True):
    """One run in two well separated basins of TIC 0: hopping between them every 20 frames, or stuck in the first."""
    rng = np.random.default_rng(seed)
    n = 200
    centre = np.repeat(np.tile([0.0, 4.0], 5), 20) if hopping else np.zeros(n)
    tics = centre[:, None] + rng.normal(0, 0.3, (n, 2))
    return {
        "ca": np.cumsum(rng.normal(0, 0.2, (n, 5, 3)), axis=1).astype(np.float32),
        "tics": tics,
        "weight": np.full(n, 1 / n),
        "traj": np.zeros(n, dtype=int),
    }


SETTINGS = {"macrostate_clusters": 6, "macrostates": 2, "seed": 1}


def test_a_model_stuck_in_one_state_is_as_far_as_the_ground_truths_other_state_weighs():
    suite = MetricSuite(two_states(0), two_states(1, hopping=False), SETTINGS)
    labels = suite.macrostates()
    populations = suite.macrostate_populations(labels, "counts")
    assert labels["n_macrostates"] == 2
    assert sorted(populations["model"]) == pytest.approx([0.0, 1.0], abs=0.01)  # a frame may fall outside
    assert populations["total_variation"] == pytest.approx(0.5, abs=0.05)


def test_without_macrostates_or_weights_there_is_no_distance():
    model = two_states(1)
    model["weight"] = np.full(200, -1.0)  # no distribution: the we weighting is not estimable
    suite = MetricSuite(two_states(0), model, SETTINGS)
    none = {"groundtruth": np.array([]), "model": np.array([]), "n_macrostates": 0}
    assert suite.macrostate_populations(none, "counts")["total_variation"] is None
    labels = suite.macrostates()
    assert labels["n_macrostates"] == 2 and suite.macrostate_populations(labels, "we")["total_variation"] is None
    assert suite.macrostate_populations(labels, "counts")["total_variation"] < 0.2  # the same hopping run
