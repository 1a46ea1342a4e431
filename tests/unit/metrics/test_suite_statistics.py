"""The metric suite's statistics: estimates, intervals and noise floors under given model weights."""

import numpy as np
import pytest

from westbench.metrics.estimability import NotEstimable
from westbench.metrics.suite import MetricSuite


@pytest.fixture(scope="module")
def groundtruth():
    rng = np.random.default_rng(0)
    n = 120
    return {
        "ca": np.cumsum(rng.normal(0, 0.2, (n, 5, 3)), axis=1).astype(np.float32),
        "tics": rng.normal(size=(n, 2)),
        "weight": np.full(n, 1 / n),
        "traj": np.repeat(np.arange(12), 10),
    }


def test_the_ground_truth_against_itself_scores_zero_and_the_largest_kl_is_finite(groundtruth):
    suite = MetricSuite(groundtruth, groundtruth, {"seed": 0, "kl_estimator": "histogram", "bins": 10})
    divergences = suite.divergences(suite.weights("counts"))
    assert set(divergences) == {"w1", "kl"}
    assert all(value == pytest.approx(0, abs=1e-12) for row in divergences.values() for value in row.values())
    reachable = dict(zip(suite.binned.keys, suite.largest_reachable()))
    assert reachable[("w1", "tic0")] == np.inf and 0 < reachable[("kl", "tic0")] < np.inf


def test_an_interval_needs_bootstrap_replicates_and_a_floor_is_cached_per_size(groundtruth):
    suite = MetricSuite(groundtruth, groundtruth, {"seed": 0, "floor_splits": 5})
    weights = suite.weights("counts")
    with pytest.raises(NotEstimable, match="metrics.bootstrap is 0"):
        suite.intervals(weights, suite.estimates(weights))
    floor = suite.noise_floor(60.0)
    assert suite.noise_floor(60.0) is floor and floor.value.shape == (len(suite.binned.keys),)
