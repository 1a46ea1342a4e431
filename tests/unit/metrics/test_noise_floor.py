"""The noise floor and verdicts: a fresh sample of the ground truth's distribution is within noise, a shifted
one is separated; the protein's one macrostate model is shared by every engine's metrics job."""

import numpy as np
import pytest

from westbench.io.frames import write_frames
from westbench.metrics.metastable import MacrostateModel
from westbench.metrics.noise_floor import floor_subsets, pseudo_model_units
from westbench.metrics.score import fit_macrostate_model, score_engine
from westbench.metrics.suite import MetricSuite


def runs(n_runs, per_run, shift, seed):
    """Independent runs hopping between two basins of TIC 0 (a metastable ground truth), TICs shifted by ``shift``."""
    rng = np.random.default_rng(seed)
    n = n_runs * per_run
    basin = np.repeat(rng.integers(0, 2, size=n // 10), 10)[:n] * 3.0
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
