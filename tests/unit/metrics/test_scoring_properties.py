"""Properties of the scoring rules on random distributions (hypothesis): a broken engine is never rewarded.

- Moving model mass out of the ground truth's support never lowers KL (1-D and 2-D), and moving
  mass that is already outside further away never lowers W1.
- A sample scored against itself gives 0; W1 is symmetric; results do not depend on frame order.
- The dihedrals' W1 is the circular W1: the minimum over shifts of the CDF difference's integral.
"""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from westbench.metrics.binning import ReferenceBins
from westbench.metrics.divergences import CircularWasserstein1D, Wasserstein1D, kl_from_histograms
from westbench.metrics.intervals import unit_bootstrap
from westbench.metrics.suite import MetricSuite

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def frames_from(tics, seed=0, runs=4):
    """Frames with the given (n, 2+) TICs, small random C-alpha chains, uniform weights, ``runs`` runs."""
    n = len(tics)
    rng = np.random.default_rng(seed)
    ca = np.cumsum(rng.normal(0, 0.2, size=(n, 5, 3)), axis=1).astype(np.float32)
    return {
        "ca": ca,
        "tics": np.asarray(tics, dtype=np.float64),
        "weight": np.full(n, 1.0 / n),
        "traj": np.arange(n) % runs,
    }


samples = st.integers(min_value=0, max_value=2**31 - 1).map(np.random.default_rng)


@st.composite
def distribution_pair(draw):
    rng = draw(samples)
    n_gt, n_model = draw(st.integers(8, 120)), draw(st.integers(4, 120))
    scale = draw(st.floats(0.05, 5.0))
    shift = draw(st.floats(-3.0, 3.0))
    gt = rng.normal(0, 1, size=(n_gt, 4))
    model = rng.normal(shift, scale, size=(n_model, 4))
    return gt, model, rng


@SETTINGS
@given(distribution_pair(), st.floats(0.01, 0.9), st.floats(0.0, 100.0), st.floats(0.0, 1000.0))
def test_moving_model_mass_out_of_the_support_never_lowers_kl_and_further_never_lowers_w1(pair, share, near, further):
    gt, model, rng = pair
    moved = rng.random(len(model)) < share
    if not moved.any():
        moved[0] = True
    outside = gt[:, :2].max(axis=0) + 0.5 + near
    exploded, farther = model.copy(), model.copy()
    exploded[moved, :2] = outside
    farther[moved, :2] = outside + further
    reference = frames_from(gt)
    suites = [MetricSuite(reference, frames_from(m, 1)) for m in (model, exploded, farther)]
    scores = [suite.divergences(suite.weights("counts")) for suite in suites]
    original, out, out_farther = scores
    for name in ("tic0", "tic1", "tic01"):
        assert out["kl"][name] >= original["kl"][name] - 1e-12, name
        assert out_farther["kl"][name] >= out["kl"][name] - 1e-12, name
    for name in ("tic0", "tic1"):
        assert out_farther["w1"][name] >= out["w1"][name] - 1e-9, name


@SETTINGS
@given(distribution_pair())
def test_a_sample_scored_against_itself_gives_zero(pair):
    gt, _, _ = pair
    frames = frames_from(gt)
    suite = MetricSuite(frames, frames)
    values = suite.divergences(suite.weights("we"))
    for metric in ("w1", "kl"):
        assert all(value == 0.0 for value in values[metric].values()), values[metric]


@SETTINGS
@given(distribution_pair())
def test_w1_is_symmetric_and_independent_of_frame_order(pair):
    gt, model, rng = pair
    a, b = frames_from(gt, 0), frames_from(model, 1)
    suite = MetricSuite(a, b)
    forward = suite.divergences(suite.weights("we"))["w1"]
    backward = MetricSuite(b, a).divergences(MetricSuite(b, a).weights("we"))["w1"]
    order = rng.permutation(len(model))
    permuted = {key: value[order] for key, value in b.items()}
    shuffled_suite = MetricSuite(a, permuted)
    shuffled = shuffled_suite.divergences(shuffled_suite.weights("we"))
    for name, value in forward.items():
        if name != "tic01":  # the 2-D W1 is on the ground truth's grid: swapping the roles changes the grid
            assert np.isclose(backward[name], value, rtol=1e-9, atol=1e-12), name
        assert np.isclose(shuffled["w1"][name], value, rtol=1e-9, atol=1e-12), name
    for name, value in suite.divergences(suite.weights("we"))["kl"].items():
        assert np.isclose(shuffled["kl"][name], value, rtol=1e-9, atol=1e-12), name


@SETTINGS
@given(samples, st.integers(1, 60), st.integers(1, 60), st.floats(-720.0, 720.0))
def test_circular_w1_is_the_minimum_over_shifts_and_turns_with_the_circle(rng, n_a, n_b, turn):
    a, b = rng.uniform(-180, 180, n_a), rng.vonmises(1.0, 2.0, n_b) * 180 / np.pi
    wa, wb = rng.random(n_a) + 0.01, rng.random(n_b) + 0.01
    value = CircularWasserstein1D(a, b, 360.0, -180.0)(wa, wb)
    # brute force: the CDF difference on a fine grid of the circle, shifted by its median (the minimizing shift)
    grid = np.linspace(-180, 180, 36_001)[:-1]

    def cdf(x, w):
        order = np.argsort(x)
        cumulative = np.concatenate(([0.0], np.cumsum(w[order]))) / w.sum()
        return cumulative[np.searchsorted(x[order], grid, side="right")]

    difference = cdf(a, wa) - cdf(b, wb)
    brute = np.abs(difference - np.median(difference)).sum() * 360.0 / len(grid)
    assert abs(value - brute) < 0.05
    rotated = CircularWasserstein1D(a + turn, b + turn, 360.0, -180.0)(wa, wb)
    assert np.isclose(rotated, value, atol=1e-6)
    assert value <= Wasserstein1D(a, b)(wa, wb) + 1e-9
    assert np.isclose(CircularWasserstein1D(b, a, 360.0, -180.0)(wb, wa), value, atol=1e-9)


@SETTINGS
@given(samples, st.integers(3, 30), st.integers(3, 30), st.floats(0.0, 2.0))
def test_bca_intervals_always_contain_their_estimate(rng, n_gt, n_model, shift):
    """Even for a divergence whose every replicate exceeds the estimate (upward bias)."""
    gt, model = rng.normal(0, 1, n_gt), rng.normal(shift, 1, n_model)
    bins = ReferenceBins.from_reference(gt, 10)
    gt_hist = np.stack([bins.histogram([x]) for x in gt])
    model_hist = np.stack([bins.histogram([x]) for x in model])

    def statistic(multiplicities):
        g, m = multiplicities
        return np.array([[kl_from_histograms(p, q, 1e-8) for p, q in zip(g @ gt_hist, m @ model_hist)]])

    result = unit_bootstrap(statistic, [n_gt, n_model], replicates=60, seed=int(rng.integers(1 << 30)))
    assert result.low[0] <= result.estimate[0] <= result.high[0]
