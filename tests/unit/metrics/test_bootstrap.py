"""Bootstrap intervals of W1 and KL, and the leading-iteration discard, on synthetic data."""

import numpy as np
import pytest

from westbench.errors import WestbenchError
from westbench.metrics.suite import MetricSuite, discard_leading_iterations


def synthetic(n_groups, shift, seed, per_group=10):
    rng = np.random.default_rng(seed)
    n = n_groups * per_group
    ca = np.cumsum(rng.normal(0, 0.2, size=(n, 6, 3)), axis=1).astype(np.float32)
    tics = rng.normal(size=(n, 4)) + shift
    groups = np.repeat(np.arange(n_groups), per_group)
    return {"ca": ca, "tics": tics, "weight": np.full(n, 1.0 / n), "traj": groups, "iteration": groups + 1}


@pytest.mark.parametrize("metric", ["w1", "kl"])
def test_intervals_contain_the_estimate_and_shrink_with_more_data(metric):
    widths = []
    for n_groups in (8, 256):
        groundtruth = synthetic(n_groups, 0.0, 1, per_group=4)
        groundtruth["iteration"] = np.zeros(len(groundtruth["ca"]), int)  # runs, like the ground truth
        suite = MetricSuite(groundtruth, synthetic(n_groups, 0.5, 2, per_group=4), {"bootstrap": 40, "bins": 20, "seed": 3})
        values, table = suite.score("we")
        low, high = values["ci95"][metric]["tic0"]
        assert low <= values[metric]["tic0"] <= high
        row = table[(table["metric"] == metric) & (table["distribution"] == "tic0")].iloc[0]
        assert (row["ci_low"], row["ci_high"]) == (low, high)
        widths.append(high - low)
    assert widths[1] < 0.5 * widths[0]


def test_bootstrap_is_seeded():
    frames = synthetic(10, 0.3, 4)
    first = MetricSuite(synthetic(10, 0.0, 5), frames, {"bootstrap": 10, "seed": 1}).bootstrap("we")
    again = MetricSuite(synthetic(10, 0.0, 5), frames, {"bootstrap": 10, "seed": 1}).bootstrap("we")
    assert first == again and first["w1"]["tic0"][0] < first["w1"]["tic0"][1]


def test_discard_iterations_by_count_and_fraction():
    frames = synthetic(10, 0.0, 6)
    kept, n = discard_leading_iterations(frames, 3)
    assert n == 3 and kept["iteration"].min() == 4 and len(kept["ca"]) == 70
    kept, n = discard_leading_iterations(frames, 0.25)
    assert n == 2 and kept["iteration"].min() == 3
    suite = MetricSuite(synthetic(10, 0.0, 7), frames, {"discard_iterations": 0.5})
    assert suite.discarded_iterations == 5 and len(suite.model["ca"]) == 50
    assert suite.score("counts")[0]["discarded_iterations"] == 5
    with pytest.raises(WestbenchError, match="discard_iterations"):
        discard_leading_iterations(frames, 10)
