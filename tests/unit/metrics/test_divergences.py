"""Divergences against analytic results; KL direction and floor."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.metrics.divergences import kl_1d, kl_2d, kl_from_histograms, wasserstein_1d

RNG = np.random.default_rng(11)


def test_w1_of_shifted_gaussians_equals_the_shift():
    a = RNG.normal(0.0, 1.0, 300_000)
    for shift in (0.3, 1.0, 2.5):
        assert wasserstein_1d(a, a + shift) == pytest.approx(shift, abs=1e-9)
        assert wasserstein_1d(a, RNG.normal(shift, 1.0, 300_000)) == pytest.approx(shift, abs=0.02)


def test_kl_of_gaussians_matches_the_closed_form():
    mu1, s1, mu2, s2 = 0.0, 1.0, 0.7, 1.4
    exact = np.log(s2 / s1) + (s1**2 + (mu1 - mu2) ** 2) / (2 * s2**2) - 0.5
    p, q = RNG.normal(mu1, s1, 1_000_000), RNG.normal(mu2, s2, 1_000_000)
    assert kl_1d(p, q, bins=200) == pytest.approx(exact, rel=0.03)


def test_kl_direction_is_ground_truth_first():
    """KL(P||Q) != KL(Q||P) for these two; the function must return KL(reference || model), never its negative."""
    p, q = RNG.normal(0, 1, 500_000), RNG.normal(0.5, 1.2, 500_000)
    forward = np.log(1.2) + (1 + 0.25) / (2 * 1.44) - 0.5  # KL(N(0,1) || N(0.5,1.2^2)) = 0.116
    backward = np.log(1 / 1.2) + (1.44 + 0.25) / 2 - 0.5  # KL(N(0.5,1.2^2) || N(0,1)) = 0.163
    assert kl_1d(p, q, bins=200) == pytest.approx(forward, rel=0.05)
    assert kl_1d(q, p, bins=200) == pytest.approx(backward, rel=0.05)
    assert kl_1d(p, q) > 0 and kl_1d(q, p) > 0


def test_floor_applies_to_empty_model_bins_only():
    """An empty model bin where the ground truth has mass p gets min(floor, p), nothing is renormalized."""
    p = np.array([0.5, 0.5, 0.0])
    q = np.array([1.0, 0.0, 0.0])
    assert kl_from_histograms(p, q, floor=1e-6) == pytest.approx(
        0.5 * np.log(0.5) + 0.5 * np.log(0.5 / 1e-6), rel=1e-12
    )
    assert kl_from_histograms(q, p, floor=1e-6) == pytest.approx(np.log(2), rel=1e-12)
    assert kl_from_histograms([1e-9, 1.0], [0.0, 1.0], floor=1e-6) == pytest.approx(0.0, abs=1e-15)  # p < floor


def test_weights_equal_replicated_data():
    """Integer weights give the same divergences as replicating each sample that many times."""
    values = RNG.normal(size=400)
    counts = RNG.integers(1, 5, size=400)
    replicated = np.repeat(values, counts)
    other = RNG.normal(0.3, 1.2, size=1000)
    assert wasserstein_1d(values, other, counts) == pytest.approx(wasserstein_1d(replicated, other), abs=1e-12)
    assert kl_1d(values, other, counts, bins=20) == pytest.approx(kl_1d(replicated, other, bins=20), abs=1e-12)


def test_identical_samples_give_zero():
    sample = RNG.normal(size=(5000, 2))
    assert wasserstein_1d(sample[:, 0], sample[:, 0]) == 0
    assert kl_1d(sample[:, 0], sample[:, 0]) == pytest.approx(0, abs=1e-12)
    assert kl_2d(sample, sample) == pytest.approx(0, abs=1e-12)


def test_presorted_wasserstein_equals_scipy_under_every_weighting():
    from scipy.stats import wasserstein_distance

    from westbench.metrics.divergences import Wasserstein1D

    rng = np.random.default_rng(7)
    reference, model = rng.normal(size=3000), rng.gamma(2.0, size=5000)
    w1 = Wasserstein1D(reference, model)
    for reference_weights, model_weights in (
        (None, None),
        (rng.random(3000), None),
        (None, rng.random(5000)),
        (rng.random(3000), rng.random(5000)),
    ):
        assert w1(reference_weights, model_weights) == pytest.approx(
            wasserstein_distance(reference, model, reference_weights, model_weights), rel=1e-12
        )


@settings(max_examples=80, deadline=None)
@given(
    reference=st.lists(st.integers(-4, 4), min_size=1, max_size=60),
    model=st.lists(st.integers(-4, 4), min_size=1, max_size=60),
    seed=st.integers(0, 1000),
)
def test_one_pooled_sort_equals_scipy_on_tied_values(reference, model, seed):
    """Ties within and across the samples (where the pooled positions' counts differ from scipy's, at zero width)."""
    from scipy.stats import wasserstein_distance

    from westbench.metrics.divergences import Wasserstein1D

    reference, model = np.asarray(reference, dtype=float), np.asarray(model, dtype=float)
    rng = np.random.default_rng(seed)
    weights = (rng.random(len(reference)) + 0.01, rng.random(len(model)) + 0.01)
    w1 = Wasserstein1D(reference, model)
    for reference_weights, model_weights in ((None, None), weights):
        assert w1(reference_weights, model_weights) == pytest.approx(
            wasserstein_distance(reference, model, reference_weights, model_weights), rel=1e-12, abs=1e-12
        )
