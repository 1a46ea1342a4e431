"""Known answers from two samples: the ground truth and the perturbed engine's own, combined by MBAR."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.calibration.multistate import known_answer_weights, mbar_weights
from westbench.cg.internal_coordinates import kt
from westbench.metrics.weighted import effective_sample_size

TEMPERATURE = 300.0
K = 500.0  # U = K x^2 (kJ/mol, nm): at temperature T the variance is kT / 2K


def harmonic_sample(rng, temperature, n):
    return rng.normal(0.0, np.sqrt(kt(temperature) / (2 * K)), n)


@settings(max_examples=25, deadline=None)
@given(
    energies=st.lists(st.floats(-50, 50), min_size=4, max_size=40),
    split=st.integers(1, 3),
)
def test_two_identical_states_weigh_every_frame_alike(energies, split):
    """Whatever the energies: when both states are one, every frame of both samples counts the same."""
    u = np.asarray(energies) / kt(TEMPERATURE)
    counts = [split, len(u) - split]
    weights = mbar_weights(np.vstack([u, u]), counts)
    assert weights.shape == (2, len(u))
    assert np.allclose(weights, 1.0 / len(u), atol=1e-9)


def test_the_hotter_equilibrium_comes_from_its_own_sample_where_reweighting_alone_scatters():
    """A harmonic well at 300 K and at 4 x 300 K (variance 4 x), 10 seeds: reweighting 2,000 frames at 300 K to
    1,200 K leans on the few frames far out (a small effective sample, estimates 0.6-1.05 of the truth); with 2,000
    frames of the hot well itself MBAR gives the hot variance every time."""
    hot = 4.0 * TEMPERATURE
    truth = kt(hot) / (2 * K)
    errors = {"alone": [], "mbar": []}
    for seed in range(10):
        rng = np.random.default_rng(seed)
        x, own = harmonic_sample(rng, TEMPERATURE, 2000), harmonic_sample(rng, hot, 2000)
        alone, nothing = known_answer_weights((K * x**2, K * x**2), None, TEMPERATURE, hot)
        assert nothing.size == 0 and alone.sum() == pytest.approx(1.0)
        shared, mine = known_answer_weights((K * x**2, K * x**2), (K * own**2, K * own**2), TEMPERATURE, hot)
        assert shared.sum() + mine.sum() == pytest.approx(1.0) and (shared >= 0).all() and (mine >= 0).all()
        assert mine.sum() > 0.5  # the hot sample carries most of the hot state's weight
        assert effective_sample_size(np.r_[shared, mine]) > 3 * effective_sample_size(alone)
        errors["alone"].append(abs(float(alone @ x**2) / truth - 1))
        errors["mbar"].append(abs(float(shared @ x**2 + mine @ own**2) / truth - 1))
    assert max(errors["mbar"]) < 0.1
    assert np.mean(errors["alone"]) > 3 * np.mean(errors["mbar"])
