"""Exact reweighting of the ground truth to a perturbed model and temperature, and a known answer's frames: the
ground truth's with their weights, and the engine's own sample beside them."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.calibration.known_answer import KnownAnswer
from westbench.calibration.reweighting import reweighting_weights
from westbench.cg.internal_coordinates import kt
from westbench.metrics.weighted import effective_sample_size


def test_a_known_answer_pools_its_frames_with_the_ground_truths_keeping_runs_apart():
    groundtruth = {
        "ca": np.zeros((4, 2, 3)),
        "tics": np.zeros((4, 2)),
        "weight": np.full(4, 0.25),
        "traj": np.array([0, 0, 1, 1]),
        "time_ps": np.array([1.0, 2.0, 1.0, 2.0]),
        "iteration": np.zeros(4),
        "forces": np.ones((4, 2, 3)),  # a column the own sample lacks: not pooled
    }
    own = {**{k: v[:2] for k, v in groundtruth.items() if k != "forces"}, "weight": np.array([0.3, 0.3])}
    pooled = KnownAnswer(np.full(4, 0.1), own).pooled(groundtruth)
    assert pooled["weight"].tolist() == [0.1, 0.1, 0.1, 0.1, 0.3, 0.3]
    assert pooled["traj"].tolist() == [0, 0, 1, 1, 2, 2] and "forces" not in pooled
    alone = KnownAnswer(np.full(4, 0.25)).pooled(groundtruth)
    assert len(alone["ca"]) == 4 and np.allclose(alone["weight"], 0.25)
    from_sample = KnownAnswer(np.zeros(4), {**own, "weight": np.array([0.5, 0.5])}).pooled(groundtruth)
    # the ground truth's weightless frames stay: uniform weights would read as the reference's own equilibrium
    assert from_sample["weight"].tolist() == [0.0, 0.0, 0.0, 0.0, 0.5, 0.5]


class Harmonic(torch.nn.Module):
    """U = k |x|^2 over every coordinate (kJ/mol, nm)."""

    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        return self.k * (x**2).sum((-1, -2))


@settings(max_examples=10, deadline=None)
@given(scale=st.floats(1.02, 1.3), seed=st.integers(0, 1000))
def test_reweighting_to_a_hotter_temperature_gives_its_variance(scale, seed):
    k, temperature = 500.0, 300.0
    sigma2 = kt(temperature) / (2 * k)  # exp(-k x^2 / kT): variance kT / 2k
    x = np.random.default_rng(seed).normal(0, np.sqrt(sigma2), (40000, 1, 1))
    w = reweighting_weights(x, Harmonic(k), Harmonic(k), temperature, scale * temperature)
    variance = float(np.sum(w * x[:, 0, 0] ** 2))
    assert variance == pytest.approx(scale * sigma2, rel=0.05)


def test_reweighting_to_the_same_model_is_uniform():
    x = np.random.default_rng(0).normal(size=(100, 3, 3))
    w = reweighting_weights(x, Harmonic(3.0), Harmonic(3.0), 300.0, 300.0)
    assert np.allclose(w, 1 / 100) and effective_sample_size(w) == pytest.approx(100)
