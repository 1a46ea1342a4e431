"""The metric suite's model weights: each weighting a distribution over the model's frames, or not estimable."""

import numpy as np
import pytest

from westbench.metrics.estimability import NotEstimable
from westbench.metrics.suite import MetricSuite


def frames(weight, seed=0):
    rng = np.random.default_rng(seed)
    n = len(weight)
    return {
        "ca": np.cumsum(rng.normal(0, 0.2, (n, 5, 3)), axis=1).astype(np.float32),
        "tics": np.cumsum(rng.normal(0, 0.3, (n, 2)), axis=0) % 2.0,  # a slow walk: the MSM sees transitions back
        "weight": np.asarray(weight, dtype=float),
        "traj": np.repeat(np.arange(n // 10), 10),
    }


SETTINGS = {"seed": 0, "msm_bins": 3}  # a coarse grid: a few states, each entered and left


def test_counts_weigh_frames_equally_and_we_keeps_the_exported_shares():
    exported = np.random.default_rng(1).random(60)
    suite = MetricSuite(frames(np.full(60, 1 / 60)), frames(exported), SETTINGS)
    assert np.allclose(suite.weights("counts"), 1 / 60)
    assert np.allclose(suite.weights("we"), exported / exported.sum())
    assert suite.effective_frames("counts") == pytest.approx(60)
    assert suite.effective_frames("we") < 60  # unequal weights carry less than their frame count
    assert suite.weights("msm").sum() == pytest.approx(1) and suite.msm is not None


def test_weights_that_are_no_distribution_are_not_estimable_and_a_bogus_weighting_an_error():
    negative = np.full(60, 1 / 60)
    negative[0] = -1.0
    suite = MetricSuite(frames(np.full(60, 1 / 60)), frames(negative), SETTINGS)
    with pytest.raises(NotEstimable, match="not a distribution"):
        suite.weights("we")
    with pytest.raises(ValueError, match="weighting must be one of"):
        suite.weights("bogus")


def test_a_resample_drawing_each_unit_once_gives_the_msm_weights():
    suite = MetricSuite(frames(np.full(60, 1 / 60)), frames(np.full(60, 1 / 60), seed=2), SETTINGS)
    ones = np.ones(suite.n_model_units)
    assert np.array_equal(suite.resampled_msm_weights(ones), suite.weights("msm"))
