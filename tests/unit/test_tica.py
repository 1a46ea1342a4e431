"""TICA: recovery of a known slow coordinate, boundaries between trajectories, the portable model."""

import json

import numpy as np
import pytest

from westbench.errors import WestbenchError
from westbench.io.frames import write_frames
from westbench.tica import FEATURE_CA_DISTANCES, FORMAT_VERSION, TicaModel, fit_groundtruth, fit_tica

from .tica.synthetic import synthetic_protein


@pytest.fixture
def synthetic():
    """Three trajectories of 8 features: a hidden two-state slow process mixed into all of them, plus fast noise."""
    rng = np.random.default_rng(42)
    mixing = rng.normal(size=(3, 8))
    trajectories, slow_parts = [], []
    for _ in range(3):
        slow = np.repeat(rng.choice([-1.0, 1.0], size=60), 25) + 0.2 * rng.normal(size=1500)
        fast = rng.normal(size=(1500, 2))
        trajectories.append(np.column_stack([slow, fast]) @ mixing + 0.1 * rng.normal(size=(1500, 8)))
        slow_parts.append(slow)
    return trajectories, slow_parts


def test_tica_recovers_the_slow_coordinate(synthetic):
    trajectories, slow = synthetic
    model = TicaModel.from_deeptime(fit_tica(trajectories, lag=5, dim=3), "toy", "test", 8, 5, 5.0)
    tic0 = np.concatenate([model.transform(t)[:, 0] for t in trajectories])
    assert abs(np.corrcoef(tic0, np.concatenate(slow))[0, 1]) > 0.95
    assert model.timescales_frames[0] > 5 * model.timescales_frames[1]


def test_portable_model_matches_deeptime_and_roundtrips(synthetic, tmp_path):
    trajectories, _ = synthetic
    fitted = fit_tica(trajectories, lag=5, dim=3)
    model = TicaModel.from_deeptime(fitted, "toy", FEATURE_CA_DISTANCES, 8, 5, 0.5)
    assert np.allclose(model.transform(trajectories[1]), fitted.transform(trajectories[1]), atol=1e-10)
    model.save(tmp_path / "model")
    description = json.loads((tmp_path / "model.json").read_text())
    assert description["version"] == FORMAT_VERSION and description["lag_ps"] == 0.5
    assert description["feature"] == FEATURE_CA_DISTANCES
    with np.load(tmp_path / "model.npz", allow_pickle=False) as arrays:  # plain arrays, no pickle
        assert set(arrays.files) == {"projection", "offset", "timescales_frames"}
    loaded = TicaModel.load(tmp_path / "model", protein="toy", feature=FEATURE_CA_DISTANCES, n_features=8)
    assert np.array_equal(loaded.transform(trajectories[0]), model.transform(trajectories[0]))


def test_loader_refuses_another_protein_or_feature_set(synthetic, tmp_path):
    trajectories, _ = synthetic
    TicaModel.from_deeptime(fit_tica(trajectories, lag=5), "chignolin", FEATURE_CA_DISTANCES, 8, 5, 0.5).save(
        tmp_path / "m"
    )
    with pytest.raises(WestbenchError, match="protein 'chignolin', not 'trpcage'"):
        TicaModel.load(tmp_path / "m", protein="trpcage")
    with pytest.raises(WestbenchError, match="n_features 8, not 190"):
        TicaModel.load(tmp_path / "m", n_features=190)
    with pytest.raises(WestbenchError, match="expects 8 features"):
        TicaModel.load(tmp_path / "m").transform(np.zeros((2, 45)))


def test_lagged_pairs_do_not_cross_trajectory_boundaries():
    """Short trajectories alternating between two constant levels: within each one feature 0 never changes.

    Pairs that crossed boundaries would see the level flip once every 5 frames (lag-1 autocorrelation 0.6).
    """
    rng = np.random.default_rng(0)
    pieces = [
        np.column_stack([np.full(5, (-1.0) ** k), rng.normal(size=5)]) + 1e-3 * rng.normal(size=(5, 2))
        for k in range(40)
    ]
    apart = fit_tica(pieces, lag=1)
    joined = fit_tica([np.concatenate(pieces)], lag=1)
    assert apart.cov_0t[0, 0] / apart.cov_00[0, 0] == pytest.approx(1.0, abs=0.01)
    assert joined.cov_0t[0, 0] / joined.cov_00[0, 0] == pytest.approx(0.6, abs=0.05)


def test_fit_groundtruth_projects_every_frame(tmp_path):
    runs, _, _ = synthetic_protein(n_residues=6, n_frames=30, n_runs=3, seed=3, switch_probabilities=(0.1,))
    paths = []
    for run, ca in enumerate(runs):
        path = tmp_path / f"run{run}.h5"
        write_frames(path, ca=ca, time_ps=np.arange(1, 31) * 0.1)
        paths.append(path)
    model, frames = fit_groundtruth(paths, "toy", lag_frames=2, dim=4)
    assert frames["tics"].shape == (90, 4) and model.n_features == 15 and model.lag_ps == pytest.approx(0.2)
    assert sorted(set(frames["traj"])) == [0, 1, 2] and np.isclose(frames["weight"].sum(), 1.0)
