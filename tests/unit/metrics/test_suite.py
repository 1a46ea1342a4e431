"""The metric suite: ground truth against itself, stored values, weightings."""

import numpy as np
import pytest

from westbench.metrics.suite import WEIGHTINGS, compute_metrics


@pytest.fixture(scope="module")
def frames():
    rng = np.random.default_rng(1)
    ca = np.cumsum(rng.normal(0, 0.22, size=(600, 8, 3)), axis=1).astype(np.float32)
    return {
        "ca": ca,
        "tics": rng.normal(size=(600, 10)).astype(np.float32),
        "weight": np.full(600, 1 / 600),
        "traj": np.repeat(np.arange(60), 10),
    }


def test_ground_truth_against_itself_is_zero_with_full_coverage(frames):
    for weighting in ("we", "counts"):
        values, table = compute_metrics(frames, frames, weighting)
        assert all(v == 0 for v in values["w1"].values())
        assert all(v == pytest.approx(0, abs=1e-12) for v in values["kl"].values())
        assert values["coverage"] == 1.0 and values["contact_map_w1_A"] == 0.0


def test_every_one_dimensional_distribution_stores_w1_and_kl(frames):
    """A pitfall of the published code: 1-D W1 computed but never stored."""
    values, table = compute_metrics(frames, frames, "we")
    expected = {"tic0", "tic1", "tic2", "tic3", "rg", "bonds", "angles", "dihedrals"}
    assert set(values["w1"]) == set(values["kl"]) == expected | {"tic01"}  # tic01: 2-D W1 (POT) and KL
    stored = table[table["metric"] == "w1"]
    assert set(stored["distribution"]) == expected | {"tic01"} and stored["value"].notna().all()
    assert values["kl_floor"] == 1e-8


def test_weightings_change_the_model_side_only(frames):
    rng = np.random.default_rng(2)
    model = dict(frames, weight=rng.random(600))
    results = {w: compute_metrics(frames, model, w)[0] for w in WEIGHTINGS}
    assert results["counts"]["w1"]["tic0"] == 0  # uniform model weights = the ground truth's
    assert results["we"]["w1"]["tic0"] > 0
    assert results["msm"]["w1"]["tic0"] != results["we"]["w1"]["tic0"]
    with pytest.raises(ValueError, match="weighting"):
        compute_metrics(frames, model, "bogus")


def test_macrostate_populations_of_the_ground_truth_against_itself_agree(frames):
    from westbench.metrics.suite import MetricSuite

    centre = np.repeat(np.tile([0.0, 3.0], 6), 50)
    tics = centre[:, None] + np.random.default_rng(3).normal(0, 0.3, (600, 10))
    data = dict(frames, tics=tics.astype(np.float32), traj=np.zeros(600, dtype=int))
    suite = MetricSuite(data, data, {"macrostate_clusters": 10, "macrostates": 2, "seed": 1})
    labels = suite.macrostates()
    populations = suite.macrostate_populations(labels, "we")
    assert labels["n_macrostates"] == 2 and np.array_equal(labels["groundtruth"], labels["model"])
    assert populations["total_variation"] == 0 and sum(populations["model"]) == pytest.approx(1)
    shifted = dict(data, weight=np.where(centre == 0.0, 0.9, 0.1) / 300)
    assert MetricSuite(data, shifted, suite.settings).macrostate_populations(labels, "we")["total_variation"] > 0.3


@pytest.fixture(scope="module")
def walks():
    """Six runs of a slow 2-D random walk on the TICs (a coarse MSM grid sees transitions in every run)."""
    rng = np.random.default_rng(3)
    n = 240
    ca = np.cumsum(rng.normal(0, 0.22, size=(n, 8, 3)), axis=1).astype(np.float32)
    tics = np.cumsum(rng.normal(0, 0.3, size=(6, 40, 4)), axis=1).reshape(n, 4).astype(np.float32)
    return {"ca": ca, "tics": tics, "weight": np.full(n, 1 / n), "traj": np.repeat(np.arange(6), 40)}


def test_the_msm_weighting_re_estimates_its_weights_in_every_bootstrap_replicate(walks):
    """The msm weighting's intervals hold the MSM's estimation error: each replicate's weights come from the grid MSM
    of the resampled units (a unit drawn twice is two pieces), not the full sample's weights times multiplicities."""
    from westbench.metrics.msm import grid_msm
    from westbench.metrics.suite import MetricSuite

    suite = MetricSuite(walks, walks, {"bootstrap": 30, "floor_splits": 8, "msm_bins": 6})
    n = suite.n_model_units
    assert np.array_equal(suite.resampled_msm_weights(np.ones(n)), suite.weights("msm"))  # the estimate's own
    multiplicity = np.array([2, 1, 1, 0, 0, 2][:n], dtype=float)
    weights = suite.resampled_msm_weights(multiplicity)
    units = suite.model_units
    assert weights.sum() == pytest.approx(1.0) and not weights[multiplicity[units] == 0].any()
    # the same as the MSM of the resample written out, a unit drawn twice as two pieces
    drawn = [(u, k) for u in range(n) for k in range(int(multiplicity[u]))]
    chosen = np.concatenate([np.flatnonzero(units == u) for u, _ in drawn])
    pieces = np.concatenate([walks["traj"][units == u] + 1000 * k for u, k in drawn])
    explicit = grid_msm(walks["tics"][chosen], pieces, suite.msm_grid, suite.settings.msm_lag)
    assert np.allclose(weights, np.bincount(chosen, explicit.weights, minlength=len(units)))
    fixed = suite.weights("msm") * multiplicity[units]
    assert not np.allclose(weights, fixed / fixed.sum())  # re-estimated, not the full sample's weights reused
    # the statistic at multiplicity one is the estimate's
    ones = [np.ones((1, suite.n_groundtruth_units)), np.ones((1, n))]
    msm = suite.weights("msm")
    expected = suite.statistic(msm, suite.model_histograms(msm))(ones)[:, 0]
    assert np.allclose(suite.msm_statistic()(ones)[:, 0], expected, equal_nan=True)
    values, _ = suite.score("msm")
    assert values["intervals"]["w1"] and all(
        i["low"] <= values["w1"][name] <= i["high"] for name, i in values["intervals"]["w1"].items()
    )
