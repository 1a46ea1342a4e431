"""The nearest-neighbour KL (westbench.metrics.kl): the scoring properties on degenerate and random data
(hypothesis), its resampling route (unit multiplicities, noise-floor splits) and the marks of a KL that is no score."""

import gc
import weakref

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from westbench.metrics.kl import kl_knn
from westbench.metrics.kl_rows import BIASED, PINNED, SuiteKL, kl_mark

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
seeds = st.integers(min_value=0, max_value=2**31 - 1)
kinds = st.sampled_from(["line", "circle", "plane"])


def sample(rng, kind, n, shift=0.0, scale=1.0):
    if kind == "plane":
        return rng.normal(shift, scale, size=(n, 2))
    if kind == "circle":
        return np.mod(rng.vonmises(shift, 2.0 / scale**2, n), 2 * np.pi)
    return rng.normal(shift, scale, n)


def kl(reference, model, kind, **kwargs):
    return kl_knn(reference, model, period=2 * np.pi if kind == "circle" else None, **kwargs)


@SETTINGS
@given(seeds, kinds, st.integers(2, 80), st.integers(1, 4))
def test_a_sample_against_itself_scores_zero_whatever_its_weights_and_units(seed, kind, n, runs):
    rng = np.random.default_rng(seed)
    x = sample(rng, kind, n)
    weights = rng.random(n) + 0.01
    units = np.arange(n) % runs
    assert kl(x, x, kind) == 0.0
    assert kl(x, x, kind, reference_weights=weights, model_weights=3 * weights, reference_units=units) == 0.0


@SETTINGS
@given(seeds, kinds, st.integers(2, 40), st.integers(1, 40), st.floats(-5.0, 5.0))
def test_all_mass_on_one_value_scores_zero_against_the_same_value_and_large_elsewhere(seed, kind, n, m, value):
    """Degenerate samples (every value equal: all mass in one bin) are atoms, not densities of zero width."""
    point = np.full((1, 2), value) if kind == "plane" else np.array([value])
    reference, same = np.repeat(point, n, axis=0), np.repeat(point, m, axis=0)
    assert kl(reference, same, kind) == pytest.approx(0.0, abs=1e-12)
    elsewhere = np.repeat(point + 1.0, m, axis=0)
    far_value = kl(reference, elsewhere, kind)
    assert np.isfinite(far_value) and far_value > 10.0  # the model misses an atom: the floor's KL, not infinity


def test_one_ground_truth_point_gives_no_kl():
    assert np.isnan(kl_knn(np.zeros(1), np.zeros(5)))  # no density from one point


@SETTINGS
@given(seeds, st.sampled_from(["line", "plane"]), st.integers(5, 60), st.integers(3, 60), st.floats(0.0, 50.0))
def test_disjoint_supports_score_more_than_any_overlap_and_never_less_when_further(seed, kind, n, m, further):
    rng = np.random.default_rng(seed)
    reference = sample(rng, kind, n)
    overlapping = sample(rng, kind, m, shift=0.3)
    beyond = np.max(reference, axis=0) - np.min(overlapping, axis=0) + 1.0  # every model point past the reference
    disjoint = overlapping + beyond
    assert np.all(np.min(disjoint, axis=0) > np.max(reference, axis=0))
    assert kl(reference, disjoint, kind) >= kl(reference, overlapping, kind) - 1e-12
    assert kl(reference, disjoint + further, kind) >= kl(reference, disjoint, kind) - 1e-12


@SETTINGS
@given(seeds, st.sampled_from(["line", "plane"]), st.integers(8, 80), st.integers(4, 80), st.floats(0.01, 0.9))
def test_mass_moved_off_the_support_never_lowers_the_kl_under_any_weights(seed, kind, n, m, share):
    """The model's ball holds k times its mean point weight: weight moved away (the far-mass contract: copies far
    away carrying a share of the total) can only widen it, whatever the weights."""
    rng = np.random.default_rng(seed)
    reference, model = sample(rng, kind, n), sample(rng, kind, m, shift=0.2, scale=1.3)
    weights = rng.random(m) + 0.01
    base = kl(reference, model, kind, model_weights=weights, reference_units=np.arange(n) % 3)
    copies = rng.choice(m, size=max(1, int(round(share * m / (1 - share)))))
    far = model[copies] + 50.0
    far_weights = np.full(len(copies), share * weights.sum() / ((1 - share) * len(copies)))
    moved = kl(
        reference,
        np.concatenate([model, far]),
        kind,
        model_weights=np.concatenate([weights, far_weights]),
        reference_units=np.arange(n) % 3,
    )
    assert moved >= base - 1e-9 * max(1.0, base)
    inside = np.ones(m, dtype=bool)
    inside[rng.choice(m, size=max(1, m // 3), replace=False)] = False
    relocated = model.copy()
    relocated[~inside] = np.max(reference, axis=0) + 0.5  # out of the support, just past its edge
    assert (
        kl(reference, relocated, kind, model_weights=weights)
        >= kl(reference, model, kind, model_weights=weights) - 1e-9
    )


@SETTINGS
@given(seeds, kinds, st.integers(4, 60), st.integers(4, 60), st.floats(1e-3, 1e3))
def test_a_weight_scale_and_weightless_frames_change_nothing(seed, kind, n, m, factor):
    rng = np.random.default_rng(seed)
    reference, model = sample(rng, kind, n), sample(rng, kind, m, shift=0.4)
    weights = rng.random(m) + 0.01
    base = kl(reference, model, kind, model_weights=weights)
    assert kl(reference, model, kind, model_weights=factor * weights) == pytest.approx(base, rel=1e-9, abs=1e-12)
    extra = sample(rng, kind, 5, shift=3.0)
    padded = kl(reference, np.concatenate([model, extra]), kind, model_weights=np.concatenate([weights, np.zeros(5)]))
    assert padded == pytest.approx(base, rel=1e-9, abs=1e-12)


def test_shifted_gaussians_read_their_known_kl_at_a_run_s_sizes():
    """The issue's pair (KL 0.125): the histograms read 6.8 at 60 frames a side; the estimator about the truth."""
    values = {n: [] for n in (60, 1000)}
    for seed in range(12):
        rng = np.random.default_rng(seed)
        for n in values:
            values[n].append(kl_knn(rng.normal(0, 1, n), rng.normal(0.5, 1, n)))
    assert abs(np.mean(values[1000]) - 0.125) < 0.02
    assert abs(np.mean(values[60]) - 0.125) < 0.1


def suite_kl(gt_units=6, model_units=4, n=240, shift=0.5, seed=0):
    rng = np.random.default_rng(seed)
    gt = {"tic0": rng.normal(size=(n, 1)), "dihedrals": rng.uniform(-180, 180, size=(n, 3))}
    model = {"tic0": rng.normal(shift, 1, size=(n, 1)), "dihedrals": rng.uniform(-180, 180, size=(n, 3))}
    keys = [("w1", "tic0"), ("kl", "tic0"), ("w1", "dihedrals"), ("kl", "dihedrals"), ("kl", "tic01")]
    tics = rng.normal(size=(n, 2)), rng.normal(shift, 1, size=(n, 2))
    return SuiteKL(
        keys,
        gt,
        model,
        *tics,
        np.arange(n) % gt_units,
        np.arange(n) % model_units,
        np.ones(n),
        {"dihedrals": (-180.0, 180.0)},
        query_points=100,
    )


def test_the_bootstrap_statistic_replaces_the_kl_rows_and_reads_the_estimate_at_multiplicity_one():
    estimator = suite_kl()
    binned = lambda multiplicities: np.full((5, len(multiplicities[0])), -1.0)  # noqa: E731
    weights = np.ones(240)
    statistic = estimator.statistic(binned, weights)
    ones = statistic([np.ones((1, 6)), np.ones((1, 4))])[:, 0]
    assert ones[0] == -1.0 and ones[2] == -1.0  # the W1 rows are the binned ones
    assert 0.05 < ones[1] < 0.5 and ones[3] < 0.1 and 0.1 < ones[4] < 0.6
    rng = np.random.default_rng(1)
    replicates = statistic(
        [
            rng.multinomial(6, np.full(6, 1 / 6), 30).astype(float),
            rng.multinomial(4, np.full(4, 0.25), 30).astype(float),
        ]
    )
    assert replicates.shape == (5, 30) and np.isfinite(replicates[[1, 3, 4]]).all()
    assert (replicates[[1, 3, 4]] >= 0).all()
    assert 0.05 < np.median(replicates[1]) < 0.6


def test_noise_floor_splits_score_the_ground_truth_against_itself_near_zero():
    estimator = suite_kl(gt_units=8)
    subsets = np.zeros((5, 8))
    for row in range(5):
        subsets[row, [row, (row + 3) % 8]] = 1.0
    values = estimator.split_halves(lambda s: np.zeros((5, len(s))))(subsets)
    assert values.shape == (5, 5) and np.isfinite(values[[1, 3, 4]]).all()
    assert values[[1, 3, 4]].mean() < 0.3  # equal distributions: a small positive reading, far below the 0.125 + noise


def test_a_resample_that_holds_one_ground_truth_unit_falls_back_to_that_unit():
    estimator = suite_kl(gt_units=3)
    statistic = estimator.statistic(lambda m: np.zeros((5, len(m[0]))), np.ones(240))
    alone = statistic([np.array([[3.0, 0.0, 0.0]]), np.ones((1, 4))])
    assert np.isfinite(alone[[1, 3, 4]]).all()


def test_kl_marks_say_when_a_kl_is_no_score():
    assert kl_mark(15.5, 15.7, floored_share=0.95)[0] == PINNED
    assert kl_mark(15.4, 15.7, floored_share=0.1, reachable=16.0)[0] == PINNED  # the floor itself is pinned
    mark, reason = kl_mark(0.2, 0.27)
    assert mark == BIASED and "bias exceeds its noise" in reason
    assert kl_mark(0.03, 0.2, floored_share=0.0) == ("", "")
    assert kl_mark(None, None) == ("", "")


def suite_frames(n_runs, per_run, seed, shift=0.0):
    from westbench.io.frames import Frames

    rng = np.random.default_rng(seed)
    n = n_runs * per_run
    out = Frames(
        ca=np.cumsum(rng.normal(0, 0.2, (n, 5, 3)), axis=1),
        tics=rng.normal(shift, 1.0, (n, 4)),
        weight=np.full(n, 1 / n),
        traj=np.repeat(np.arange(n_runs), per_run),
        time_ps=np.tile(np.arange(per_run, dtype=float), n_runs),
        iteration=np.zeros(n, int),
    )
    out.attrs = {}
    return out


def test_metrics_json_marks_every_kl_and_names_its_estimator():
    from westbench.metrics.suite import MetricSuite

    settings = {"bootstrap": 50, "seed": 1, "w1_2d_bins": 8, "min_effective_frames": 5}
    values, table = MetricSuite(suite_frames(20, 20, 1), suite_frames(20, 20, 2, 1.0), settings).score("we")
    assert set(values["kl_marks"]) == set(values["kl"])
    assert values["kl_estimator"]["method"] == "nearest_neighbours" and values["kl_estimator"]["neighbours"] == 16
    assert values["kl_marks"]["tic0"] == "" and values["verdicts"]["kl"]["tic0"] == "separated"
    assert values["kl"]["tic0"] == pytest.approx(0.5, abs=0.25)  # KL(N(0,1) || N(1,1)) = 0.5


def test_a_pinned_histogram_kl_is_no_score():
    """The demo's case: few ground-truth frames on 100 bins, every empty model bin read at the floor."""
    from westbench.metrics.suite import MetricSuite

    settings = {"bootstrap": 50, "seed": 1, "w1_2d_bins": 8, "min_effective_frames": 5, "kl_estimator": "histogram"}
    values, table = MetricSuite(suite_frames(4, 15, 3), suite_frames(20, 20, 4, 0.3), settings).score("we")
    assert values["kl_estimator"]["method"] == "histogram"
    marked = {name for name, mark in values["kl_marks"].items() if mark}
    assert {"tic0", "tic1", "tic01"} <= marked
    for name in marked:
        assert values["verdicts"]["kl"][name] == "undetermined"
        assert values["verdict_notes"]["kl"][name]
    rows = table[(table["metric"] == "kl") & table["distribution"].isin(marked)]
    assert (rows["verdict"] == "undetermined").all() and rows["note"].str.len().gt(0).all()


def test_suites_on_one_ground_truth_share_its_estimators_and_read_the_same_values():
    """The calibration study scores seven engines and their known answers against one ground truth: the ground
    truth's lists are built once while a suite holds them, and a shared estimator reads what a fresh one reads."""

    rng = np.random.default_rng(3)
    gt, models = {"tic0": rng.normal(size=(600, 1))}, [rng.normal(shift, 1, size=(300, 1)) for shift in (0.2, 0.4)]

    def suite(model):
        return SuiteKL(
            [("kl", "tic0")], gt, {"tic0": model}, None, None, np.arange(600) % 12, np.arange(300) % 4, np.ones(600), {}
        )

    def values(suite_kl):
        multiplicities = [np.vstack([np.ones(12), rng.poisson(1.0, 12)]), np.vstack([np.ones(4), np.ones(4)])]
        return suite_kl.statistic(lambda m: np.zeros((1, 2)), np.ones(300))(multiplicities)

    first, second = suite(models[0]), suite(models[1])
    assert first.variables["tic0"] is second.variables["tic0"]
    estimator = weakref.ref(first.variables["tic0"])
    state = rng.bit_generator.state
    shared = values(second)
    del first, second
    gc.collect()
    # nothing kept once no suite holds it (this ground truth's estimator: another test of the same worker may still
    # hold its own, so the registry as a whole need not be empty)
    assert estimator() is None
    rng.bit_generator.state = state
    np.testing.assert_array_equal(values(suite(models[1])), shared)


def test_a_floor_or_model_no_larger_than_a_ball_gives_no_kl_verdict():
    """Where the noise floor's pseudo-model or the model holds no more than k points, every ball spans the support
    and the floor reads 0 whatever the distributions (hypothesis found a ground truth reweighted by its own MSM
    *separated* from itself): the verdict says so instead. A per-frame distribution counts its points."""
    rng = np.random.default_rng(0)
    gt = {"tic0": rng.normal(size=(80, 1)), "bonds": rng.normal(size=(80, 5))}
    model = {"tic0": rng.normal(size=(40, 1)), "bonds": rng.normal(size=(40, 5))}
    suite_kl = SuiteKL(
        [("kl", "tic0"), ("kl", "bonds")],
        gt,
        model,
        None,
        None,
        np.arange(80) // 10,
        np.arange(40) // 10,
        np.ones(80),
        {},
        k=16,
    )
    assert "pseudo-model holds 10.0 points" in suite_kl.too_few_points("tic0", 10, 40)
    assert "model (effective frames) holds 12.0" in suite_kl.too_few_points("tic0", 20, 12)
    assert suite_kl.too_few_points("tic0", 17, 40) == ""
    assert suite_kl.too_few_points("bonds", 10, 40) == ""  # 50 points: a ball of 16 fits
    assert "kl_neighbours" in suite_kl.too_few_points("bonds", 3, 40)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seeds, st.integers(1, 2), st.integers(2, 8))
def test_lists_read_under_new_weights_are_those_a_search_of_the_reweighted_side_gives(seed, dim, n_units):
    """The msm floor reweights each pseudo-model's locations and reads the ground truth's lists under the new weights
    (no new search): each unit's listed weight, farthest location with weight and atom must be those a search of the
    reweighted side lists, weightless locations and ties included."""
    from westbench.metrics import kl as module
    from westbench.metrics.neighbour_lists import Side

    rng = np.random.default_rng(seed)
    n = int(rng.integers(n_units, 12 * n_units + 1))
    points = np.round(rng.normal(size=(n, dim)), 1)  # rounded: ties and atoms
    units = np.sort(rng.integers(0, n_units, n))
    estimator = module.VariableKL(Side.build(points, np.ones(n), units, n_units), k=2, eps=1e-9)
    locations = len(estimator.reference.weights)
    new = np.exp(rng.normal(0, 2, locations)) * (rng.random(locations) > 0.3)  # heavy-tailed, some weightless
    side = estimator.reference.reweighted(new)
    read = estimator.reweighted_others(side)
    searched = side.candidates(estimator.query_values, estimator.count, estimator.eps, skip=estimator.query_units)
    for field in ("listed", "farthest", "atom"):
        np.testing.assert_allclose(getattr(read, field), getattr(searched, field), rtol=1e-12, atol=0, err_msg=field)
    np.testing.assert_array_equal(read.weight(), searched.weight())
    np.testing.assert_array_equal(read.distance, searched.distance)
    held = np.flatnonzero(rng.random(n_units) < 0.5)  # a replicate's units: only theirs are read
    some = estimator.reweighted_others(side, held)
    for field in ("listed", "farthest", "atom"):
        np.testing.assert_array_equal(getattr(some, field)[:, held], getattr(read, field)[:, held], err_msg=field)
