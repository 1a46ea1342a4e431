"""BCa intervals over independent units: against scipy, coverage of known values, containment, seeding, units."""

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.errors import WestbenchError
from westbench.metrics.intervals import bca_bounds, percentile_of_score, unit_bootstrap
from westbench.metrics.resampling import resampling_units
from westbench.metrics.suite import MetricSuite, discard_leading_iterations


def synthetic(n_groups, shift, seed, per_group=10, we=False):
    """Frames of ``n_groups`` independent runs (or WE iterations with ``we``), TICs N(shift, 1)."""
    rng = np.random.default_rng(seed)
    n = n_groups * per_group
    ca = np.cumsum(rng.normal(0, 0.2, size=(n, 5, 3)), axis=1).astype(np.float32)
    groups = np.repeat(np.arange(n_groups), per_group)
    frames = {"ca": ca, "tics": rng.normal(size=(n, 4)) + shift, "weight": np.full(n, 1.0 / n), "traj": groups}
    if we:
        frames.update(iteration=groups + 1, seg_id=np.tile(np.arange(per_group), n_groups), traj=np.arange(n))
    return frames


def weighted_mean_statistic(x):
    def statistic(multiplicities):
        (m,) = multiplicities
        return (m @ x / m.sum(axis=1))[None, :]

    return statistic


def test_bca_agrees_with_scipy():
    x = np.random.default_rng(3).exponential(1.0, 30)

    def variance(multiplicities):
        (m,) = multiplicities
        mean = m @ x / m.sum(axis=1)
        return ((m * (x[None, :] - mean[:, None]) ** 2).sum(axis=1) / m.sum(axis=1))[None, :]

    ours = unit_bootstrap(variance, [30], replicates=20_000, seed=1)
    theirs = scipy.stats.bootstrap(
        (x,), lambda a, axis: np.var(a, axis=axis), n_resamples=20_000, method="BCa", rng=2
    ).confidence_interval
    assert ours.low[0] == pytest.approx(theirs.low, abs=0.03) and ours.high[0] == pytest.approx(theirs.high, abs=0.05)


def test_coverage_of_a_known_mean_at_the_stated_level():
    """Over 400 seeds the 95 % interval of a mean holds the true mean 95 % of the time, within binomial error."""
    hits = []
    for seed in range(400):
        x = np.random.default_rng(seed).normal(2.0, 1.0, 40)
        result = unit_bootstrap(weighted_mean_statistic(x), [40], replicates=400, seed=seed + 10_000)
        hits.append(result.low[0] <= 2.0 <= result.high[0])
    error = 3 * np.sqrt(0.95 * 0.05 / len(hits))
    assert abs(np.mean(hits) - 0.95) < error + 0.01  # BCa's small-sample under-coverage is about 1 %


def test_coverage_of_a_known_w1_through_the_suite():
    """W1 between N(0, 1) and N(1, 1) is 1: the suite's intervals over runs hold it at about the stated level."""
    hits = []
    for seed in range(60):
        suite = MetricSuite(
            synthetic(20, 0.0, seed, per_group=15),
            synthetic(20, 1.0, seed + 500, per_group=15),
            # 2-D W1 is not tested, and the KL is the histograms' (its nearest-neighbour estimate, not tested here,
            # is 5x the suite's time: test_kl.py and test_contract.py cover it)
            {"bootstrap": 200, "seed": seed, "bins": 30, "w1_2d_bins": 4, "kl_estimator": "histogram"},
        )
        values, _ = suite.score("counts")
        interval = values["intervals"]["w1"]["tic0"]
        hits.append(interval["low"] <= 1.0 <= interval["high"])
    assert np.mean(hits) >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / len(hits)) - 0.02


def test_an_interval_holds_its_estimate_even_when_every_replicate_lies_above_it():
    """The ground truth against itself scores 0 and every resample scores more: the interval starts at 0."""
    frames = synthetic(8, 0.0, 1)
    values, table = MetricSuite(frames, frames, {"bootstrap": 100, "seed": 2}).score("counts")
    for metric in ("w1", "kl"):
        for name, interval in values["intervals"][metric].items():
            assert interval["low"] <= values[metric][name] <= interval["high"], (metric, name)
    assert values["intervals"]["w1"]["tic0"]["low"] == 0.0 and values["intervals"]["w1"]["tic0"]["extended"]
    assert values["intervals"]["w1"]["tic0"]["bias"] > 0  # the bootstrap's upward bias is shown
    rows = table[table["metric"].isin(["w1", "kl"])]
    assert (rows["ci_low"] <= rows["value"]).all() and (rows["value"] <= rows["ci_high"]).all()


@pytest.mark.parametrize("metric, groups, shrink", [("w1", (8, 256), 0.5), ("kl", (128, 1024), 0.7)])
def test_intervals_shrink_with_more_units(metric, groups, shrink):
    """The nearest-neighbour KL (k = 16) of 32 groups (128 frames) reads 0 (its floor), so its interval is compared
    from 128 groups (512 frames: 0.12 of 0.125); its unit bootstrap is conservative (a resample's duplicated units
    coarsen its densities: the spread of its replicates is about twice the estimator's over independent samples,
    docs/scoring.md), so it shrinks less."""
    widths = []
    for n_groups in groups:
        suite = MetricSuite(
            synthetic(n_groups, 0.0, 1, per_group=4),
            synthetic(n_groups, 0.5, 2, per_group=4),
            {"bootstrap": 100, "bins": 20, "seed": 3, "w1_2d_bins": 8},
        )
        interval = suite.score("we")[0]["intervals"][metric]["tic0"]
        widths.append(interval["high"] - interval["low"])
    assert widths[1] < shrink * widths[0]


def test_intervals_are_seeded():
    first = MetricSuite(synthetic(10, 0.0, 5), synthetic(10, 0.3, 4), {"bootstrap": 50, "seed": 1}).score("we")[0]
    again = MetricSuite(synthetic(10, 0.0, 5), synthetic(10, 0.3, 4), {"bootstrap": 50, "seed": 1}).score("we")[0]
    other = MetricSuite(synthetic(10, 0.0, 5), synthetic(10, 0.3, 4), {"bootstrap": 50, "seed": 2}).score("we")[0]
    assert first["intervals"] == again["intervals"] and first["intervals"] != other["intervals"]


def test_we_units_are_blocks_of_contiguous_iterations_or_replicas():
    frames = synthetic(20, 0.0, 1, per_group=3, we=True)
    units, description = resampling_units(frames, blocks=4)
    assert description == "4 blocks of contiguous WE iterations"
    assert np.all(np.diff(units) >= 0) and np.bincount(units).tolist() == [15, 15, 15, 15]
    frames["replica"] = np.repeat([0, 1, 2], 20)
    assert resampling_units(frames)[1] == "3 WE replicas"
    assert resampling_units(synthetic(5, 0.0, 1))[1] == "5 runs"


def test_too_few_units_give_no_interval_and_say_why():
    """Two WE iterations are two units: no interval, the reason recorded, the estimate still there."""
    suite = MetricSuite(synthetic(6, 0.0, 1), synthetic(2, 0.5, 2, we=True), {"bootstrap": 50, "seed": 1})
    values, table = suite.score("we")
    assert values["intervals"]["w1"] == {} and values["w1"]["tic0"] > 0
    assert "1 block of contiguous WE iterations" in suite.caveats.reasons["we/intervals"]  # 2 x its memory
    assert (table[table["metric"] == "w1"]["verdict"] == "undetermined").all()


def test_discard_iterations_by_count_and_fraction():
    frames = synthetic(10, 0.0, 6, we=True)
    kept, n = discard_leading_iterations(frames, 3)
    assert n == 3 and kept["iteration"].min() == 4 and len(kept["ca"]) == 70
    kept, n = discard_leading_iterations(frames, 0.25)
    assert n == 2 and kept["iteration"].min() == 3
    suite = MetricSuite(synthetic(10, 0.0, 7), frames, {"discard_iterations": 0.5})
    assert suite.discarded_iterations == 5 and len(suite.model["ca"]) == 50
    assert suite.score("counts")[0]["discarded_iterations"] == 5
    with pytest.raises(WestbenchError, match="discard_iterations"):
        discard_leading_iterations(frames, 10)


@pytest.mark.parametrize("n_units", [4, 6])
def test_coverage_of_a_known_mean_with_few_units(n_units):
    """With 4 or 6 units a plain bootstrap holds the true mean about 80-88 % of the time; the widened one about 95 %."""
    hits, plain = [], []
    for seed in range(300):
        x = np.random.default_rng(seed).normal(2.0, 1.0, n_units)
        result = unit_bootstrap(weighted_mean_statistic(x), [n_units], replicates=300, seed=seed + 20_000)
        hits.append(result.low[0] <= 2.0 <= result.high[0])
        half = (2.0 - result.estimate[0]) * result.widening[0]  # where the true mean lies before widening
        plain.append(result.low[0] <= result.estimate[0] + half <= result.high[0])
    error = 3 * np.sqrt(0.95 * 0.05 / len(hits))
    assert np.mean(hits) >= 0.95 - error
    assert np.mean(hits) > np.mean(plain) + 0.03  # the widening is what brings it there


def test_widening_stops_at_the_lowest_value_and_tends_to_one_with_many_units():
    x = np.random.default_rng(5).exponential(0.05, 4)
    result = unit_bootstrap(weighted_mean_statistic(x), [4], replicates=200, seed=1, lowest=0.0)
    assert result.low[0] >= 0.0 and result.widening[0] > 1.5
    many = unit_bootstrap(weighted_mean_statistic(np.random.default_rng(6).normal(size=200)), [200], 200, seed=2)
    assert 1.0 <= many.widening[0] < 1.01


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    shape=st.floats(0.5, 20.0),
    position=st.floats(0.0, 0.2),
)
def test_an_estimate_far_in_its_bootstraps_tail_never_gets_an_interval_narrower_than_the_bootstraps_spread(
    seed, shape, position
):
    """A divergence near 0 sits below most of its replicates (they add noise): wherever BCa's corrected percentiles
    collapse into the tail, the interval still spans the replicates' central 95 % spread about the estimate."""
    replicates = np.random.default_rng(seed).gamma(shape, 1.0, (1, 1000))
    estimate = np.quantile(replicates, [position])
    low, high, collapsed = bca_bounds(estimate, replicates, np.zeros(1), 0.95)
    spread = np.diff(np.quantile(replicates, [0.025, 0.975]))[0]
    if position < 0.02:  # about the 4.5 % point of the real cell and below: BCa's percentiles collapse
        assert collapsed[0]
    if collapsed[0]:
        assert high[0] - low[0] >= spread * (1 - 1e-9)
    assert low[0] <= estimate[0] <= high[0] or estimate[0] < low[0]  # BCa may still exclude it: unit_bootstrap extends


def test_a_collapsed_divergence_interval_stops_at_zero_and_holds_its_estimate():
    """W1 of two samples of one distribution over 12 units each, an estimate low in its bootstrap: where BCa
    collapses, the interval still never goes below 0 (no replicate does) and holds the estimate."""
    hits = 0
    for seed in range(30):
        rng = np.random.default_rng(seed)
        a, b = rng.normal(size=(12, 40)), rng.normal(size=(12, 40))

        def w1(multiplicities):
            ma, mb = multiplicities
            out = []
            for wa, wb in zip(ma, mb):
                out.append(scipy.stats.wasserstein_distance(a.ravel(), b.ravel(), np.repeat(wa, 40), np.repeat(wb, 40)))
            return np.array(out)[None, :]

        result = unit_bootstrap(w1, [12, 12], replicates=200, seed=seed, lowest=0.0)
        assert result.low[0] >= 0.0 and result.low[0] <= result.estimate[0] <= result.high[0]
        hits += bool(result.collapsed[0])
    assert hits > 0  # near 0 BCa does collapse on such data


def rounded_statistic(a, b, noise_seed):
    """|mean(a) - mean(b)| over resampled units, every value then moved by float rounding (1e-15 relative, drawn
    with ``noise_seed``; None: exact): what weights times 1000, or another order of summation, do to a statistic."""
    noise = None if noise_seed is None else np.random.default_rng(noise_seed)

    def statistic(multiplicities):
        ma, mb = multiplicities
        value = np.abs(ma @ a / ma.sum(axis=1) - mb @ b / mb.sum(axis=1))
        if noise is not None:
            value = value * (1.0 + 1e-15 * noise.standard_normal(len(value)))
        return value[None, :]

    return statistic


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), units=st.integers(3, 5), replicates=st.integers(40, 300))
def test_rounding_in_the_statistic_never_moves_an_interval(seed, units, replicates):
    """With 3 units a side about 1 in 20 replicates resamples every unit once: the estimate, computed again. Float
    rounding decides whether each sits below, on or above it; ties by tolerance make the interval, its flags and
    its bias the same to 1e-9 whatever the rounding."""
    rng = np.random.default_rng(seed)
    a, b = rng.exponential(1.0, units), rng.exponential(1.5, units)
    exact = unit_bootstrap(rounded_statistic(a, b, None), [units, units], replicates, seed, lowest=0.0)
    rounded = unit_bootstrap(rounded_statistic(a, b, seed + 1), [units, units], replicates, seed, lowest=0.0)
    for field in ("low", "high", "bias", "widening"):
        np.testing.assert_allclose(getattr(rounded, field), getattr(exact, field), rtol=1e-9, atol=1e-12)
    assert np.array_equal(rounded.extended, exact.extended) and np.array_equal(rounded.collapsed, exact.collapsed)


def test_a_statistic_zero_but_for_rounding_ties_its_zero_replicates():
    """A KL of 0 reads 2.2e-16 with every weight times 1000: its replicates' exact zeros are ties of either estimate
    (the scoring contract's hypothesis test found z0 moving 0.425 -> 0.9 and the interval flagged collapsed)."""
    replicates = np.concatenate([np.zeros(17), np.full(3, 2.220446049250313e-16)])[None]  # 0 throughout, but rounding
    exact = percentile_of_score(replicates, np.array([0.0]))
    assert percentile_of_score(replicates, np.array([2.220446049250313e-16])).tolist() == exact.tolist() == [0.5]


def test_without_the_tolerance_rounding_moves_bounds(monkeypatch):
    """The property above is not vacuous: with ties counted by ``==`` the same rounding moves a bound (the issue's
    3.97 -> 3.59 after weights times 1000)."""
    import westbench.metrics.intervals as intervals

    monkeypatch.setattr(intervals, "TIE_TOLERANCE", 0.0)
    monkeypatch.setattr(intervals, "ROUNDING_FLOOR", 0.0)
    moved = 0
    for seed in range(20):
        rng = np.random.default_rng(seed)
        a, b = rng.exponential(1.0, 3), rng.exponential(1.5, 3)
        exact = unit_bootstrap(rounded_statistic(a, b, None), [3, 3], 200, seed, lowest=0.0)
        rounded = unit_bootstrap(rounded_statistic(a, b, seed + 1), [3, 3], 200, seed, lowest=0.0)
        moved += not np.allclose([rounded.low, rounded.high], [exact.low, exact.high], rtol=1e-9)
    assert moved > 0


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), units=st.integers(3, 5), shift=st.floats(0.0, 1.0))
def test_every_reported_lower_bound_stops_at_zero(seed, units, shift):
    """Divergences are never negative, nor are their bounds: the bootstrap's interval is shifted from the binned
    estimate onto the exact one, and where the binned W1 lies above the exact one a bound that stopped at 0 would
    have gone below it (22 of the default run's 216 W1 intervals)."""
    suite = MetricSuite(
        synthetic(units, 0.0, seed, per_group=6),
        synthetic(units, shift, seed + 1, per_group=6),
        {"bootstrap": 60, "seed": seed, "bins": 12, "w1_2d_bins": 4},
    )
    for weighting in ("we", "counts"):
        values = suite.score(weighting)[0]
        for metric in ("w1", "kl"):
            for name, interval in values["intervals"][metric].items():
                assert interval["low"] >= 0.0, (weighting, metric, name)
                assert interval["low"] <= values[metric][name] <= interval["high"], (weighting, metric, name)


def test_rounding_in_the_jackknife_widens_no_interval():
    """A statistic that is 0 but for float rounding in one left-out sample (a KL clipped at 0 reading 2e-16) had a
    widening of 2.69, and none when weights times a constant rounded to exact zeros: rounding is no variance."""
    from westbench.metrics.intervals import small_sample_widening

    exact = [np.zeros((1, 4)), np.zeros((1, 3))]
    rounded = [np.zeros((1, 4)), np.array([[2.220446049250313e-16, 2.220446049250313e-16, 0.0]])]
    for jackknife in (exact, rounded):
        assert small_sample_widening(jackknife, [4, 3], 0.95).tolist() == [1.0]
    # against the replicates' scale (0.3), a deviation of 1e-11 is rounding too; a real one of 0.1 widens
    scale = np.array([0.3])
    assert small_sample_widening([np.zeros((1, 4)), np.array([[1e-11, 0.0, 0.0]])], [4, 3], 0.95, scale) == 1.0
    assert small_sample_widening([np.zeros((1, 4)), np.array([[0.1, 0.0, 0.0]])], [4, 3], 0.95, scale) > 1.5
