"""The known answer's predicted divergences: the suite's own numbers on every metric it reports."""

import numpy as np
import pytest

from westbench.calibration.predictions import predicted_divergences

from .study_data import run_frames


def test_a_prediction_of_the_ground_truth_against_itself_is_zero_on_every_metric():
    n = 200
    frames = run_frames(10, 20, seed=0, beads=6)
    same = predicted_divergences(frames, np.full(n, 1 / n))
    assert {metric for metric, _ in same} == {"w1", "kl"} and ("w1", "tic01") in same
    assert all(value == pytest.approx(0.0, abs=1e-12) for value in same.values())
    tilted = predicted_divergences(frames, np.exp(2 * frames["tics"][:, 0]))
    assert tilted[("w1", "tic0")] > 0.3 and tilted[("kl", "tic0")] > 0.1
