"""The noise floor and verdicts: a fresh sample of the ground truth's distribution is within noise, a shifted
one is separated; the protein's one macrostate model is shared by every engine's metrics job."""

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from westbench.io.frames import write_frames
from westbench.metrics.macrostate_fit import fit_macrostate_model
from westbench.metrics.metastable import MacrostateModel
from westbench.metrics.noise_floor import floor_subsets, pseudo_model_units
from westbench.metrics.score import score_engine
from westbench.metrics.suite import MetricSuite


def runs(n_runs, per_run, shift, seed):
    """Independent runs hopping between two basins of TIC 0 (a metastable ground truth), TICs shifted by ``shift``."""
    rng = np.random.default_rng(seed)
    n = n_runs * per_run
    basin = np.repeat(rng.integers(0, 2, size=-(-n // 10)), 10)[:n] * 3.0
    tics = np.column_stack([basin, np.zeros(n), np.zeros(n)]) + rng.normal(0, 0.5, (n, 3)) + shift
    ca = np.cumsum(rng.normal(0, 0.2, (n, 5, 3)), axis=1) + 0.38 * np.arange(5)[None, :, None]
    return {
        "ca": ca.astype(np.float32),
        "tics": tics,
        "weight": np.full(n, 1.0 / n),
        "traj": np.repeat(np.arange(n_runs), per_run),
        "time_ps": np.tile(np.arange(per_run, dtype=float), n_runs),
        "iteration": np.ones(n, int),
    }


SETTINGS = {"bootstrap": 200, "floor_splits": 100, "seed": 3, "bins": 30, "w1_2d_bins": 8}


def test_a_fresh_sample_of_the_same_distribution_is_within_noise_and_a_shifted_one_separated():
    groundtruth = runs(24, 40, 0.0, seed=1)
    same = MetricSuite(groundtruth, runs(12, 40, 0.0, seed=2), SETTINGS).score("counts")[0]
    shifted = MetricSuite(groundtruth, runs(12, 40, 1.5, seed=3), SETTINGS).score("counts")[0]
    for metric in ("w1", "kl"):
        for name in ("tic0", "tic1", "tic01"):
            assert same["verdicts"][metric][name] == "within noise", (metric, name, same[metric][name])
            assert shifted["verdicts"][metric][name] == "separated", (metric, name, shifted[metric][name])


def test_the_floor_splits_runs_at_the_models_size():
    assert pseudo_model_units(np.full(20, 100), model_frames=500) == 5
    assert pseudo_model_units(np.full(20, 100), model_frames=10**6) == 10  # at most half the runs
    assert pseudo_model_units(np.full(3, 100), model_frames=1) == 1
    subsets = floor_subsets(40, 5, splits=30, seed=1)
    assert subsets.shape == (30, 40) and (subsets.sum(axis=1) == 5).all()
    assert np.array_equal(subsets, floor_subsets(40, 5, splits=30, seed=1))


def test_one_macrostate_model_is_shared_by_every_engine(tmp_path):
    """Fitted once (rule macrostates); two engines' jobs assign the same ground-truth frames identically."""
    groundtruth = runs(10, 60, 0.0, seed=4)
    write_frames(tmp_path / "gt.h5", **groundtruth)
    model = fit_macrostate_model(
        tmp_path / "gt.h5", {"macrostate_clusters": 10, "macrostates": 2}, 11, tmp_path / "macrostates.npz"
    )
    loaded = MacrostateModel.load(tmp_path / "macrostates.npz")
    assert np.array_equal(model.assign(groundtruth["tics"]), loaded.assign(groundtruth["tics"]))
    populations = []
    for engine, shift in (("a", 0.0), ("b", 0.7)):
        write_frames(tmp_path / f"{engine}.h5", **runs(5, 60, shift, seed=5))
        record = score_engine(
            tmp_path / "gt.h5",
            tmp_path / f"{engine}.h5",
            {"weightings": ["counts"], "bootstrap": 0, "seed": 100 + len(engine) * ord(engine)},
            protein="p",
            engine=engine,
            json_path=tmp_path / f"{engine}.json",
            csv_path=tmp_path / f"{engine}.csv",
            figures_dir=tmp_path / engine,
            macrostates=tmp_path / "macrostates.npz",
        )
        assert record["macrostates"]["shared_model"] and record["macrostates"]["used"] == loaded.n_macrostates
        populations.append(record["metrics"]["counts"]["macrostate_populations"]["groundtruth"])
    assert populations[0] == populations[1] and sum(populations[0]) == pytest.approx(1.0)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**31 - 1),
    n_runs=st.integers(2, 7),
    per_run=st.integers(1, 12),
    ties=st.booleans(),
    estimator=st.sampled_from(["nearest_neighbours", "histogram"]),
)
def test_a_split_reweighted_by_the_ground_truths_own_weights_is_the_plain_split(seed, n_runs, per_run, ties, estimator):
    """The msm floor's path (each pseudo-model's frames under new weights, the other units' lists read under them)
    gives every statistic of the plain split when the new weights are the ground truth's own: the lists, balls and
    atoms are read the same way, whatever the shape (one frame a run, tied values, weightless frames)."""
    rng = np.random.default_rng(seed)
    groundtruth = runs(n_runs, per_run, 0.0, seed=seed)
    if ties:  # repeated values: atoms within the estimator's eps
        groundtruth["tics"] = np.round(groundtruth["tics"], 0)
    weights = rng.dirichlet(np.ones(n_runs * per_run)) * rng.integers(0, 2, n_runs * per_run)
    if not weights.any():
        weights[0] = 1.0
    groundtruth["weight"] = weights
    suite = MetricSuite(groundtruth, groundtruth, {**SETTINGS, "kl_estimator": estimator, "kl_neighbours": 2})
    units = suite.n_groundtruth_units  # runs of weightless frames only are no units
    assume(units >= 2)
    subsets = floor_subsets(units, max(1, units // 2), splits=4, seed=seed)
    plain = suite.split_halves(subsets)
    for j, subset in enumerate(subsets):
        own = np.where(subset[suite.groundtruth_units] > 0, suite.groundtruth_weights, 0.0)
        np.testing.assert_allclose(suite.reweighted_split(1.0 - subset, own), plain[:, j], rtol=1e-9, atol=1e-12)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), n_runs=st.integers(2, 7), per_run=st.integers(1, 30), ties=st.booleans())
def test_a_reweighted_split_is_the_split_of_a_ground_truth_carrying_those_weights(seed, n_runs, per_run, ties):
    """Under other weights the reweighted split equals the plain split of the same frames whose pseudo-model carries
    those weights (a second suite): the other units' lists, their listed weights, farthest weighted locations and
    atoms are re-read, not kept. The 2-D KL is left out: its whitening follows the ground truth's weights."""
    rng = np.random.default_rng(seed)
    groundtruth = runs(n_runs, per_run, 0.0, seed=seed)
    if ties:
        groundtruth["tics"] = np.round(groundtruth["tics"], 0)
    n = n_runs * per_run
    settings_ = {**SETTINGS, "kl_neighbours": 2}
    suite = MetricSuite(groundtruth, groundtruth, settings_)
    subset = floor_subsets(n_runs, max(1, n_runs // 2), splits=1, seed=seed)[0]
    chosen = subset[suite.groundtruth_units] > 0
    other = rng.dirichlet(np.full(n, 0.2)) + 1e-9  # uneven: some units' lists hold less than a ball
    carrying = MetricSuite({**groundtruth, "weight": np.where(chosen, other, 1.0 / n)}, groundtruth, settings_)
    expected = carrying.split_halves(subset[None, :])[:, 0]
    got = suite.reweighted_split(1.0 - subset, np.where(chosen, other, 0.0))
    compared = [i for i, key in enumerate(suite.binned.keys) if key != ("kl", "tic01")]
    np.testing.assert_allclose(got[compared], expected[compared], rtol=1e-9, atol=1e-12)


def test_the_msm_floor_holds_the_msm_estimate_and_a_perfect_engine_reads_within_noise():
    """Under the msm weighting each pseudo-model is reweighted by its own grid MSM: the floor differs from the
    plain one, and the ground truth reweighted by its own MSM is never separated from itself (its error at the
    ground truth's size lies within the floor's, which holds it at the pseudo-model's)."""
    groundtruth = runs(8, 12, 0.0, seed=7)
    settings_ = {**SETTINGS, "bootstrap": 40, "floor_splits": 20, "msm_bins": 6}
    suite = MetricSuite(groundtruth, groundtruth, settings_)
    record = suite.score("msm")[0]
    plain = suite.noise_floor(len(groundtruth["ca"]))
    reweighted = suite.noise_floor(len(groundtruth["ca"]), "msm")
    assert not np.allclose(plain.value, reweighted.value)
    assert record["noise_floor"]["w1"]["tic0"]["high"] == pytest.approx(
        float(suite.noise_floor(record["effective_frames"], "msm").high[0])
    )
    for metric in ("w1", "kl"):
        assert "separated" not in record["verdicts"][metric].values(), record["verdicts"][metric]
