"""The transformations that make the controls' engines (westbench.metrics.control_engines): each changes what it
says and nothing else, and TICs of moved coordinates are projected again."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.errors import WestbenchError
from westbench.geometry.ca_geometry import bond_angles, bond_lengths, dihedrals, radius_of_gyration
from westbench.io.frames import Frames
from westbench.metrics import control_engines as engines
from westbench.metrics.metastable import MacrostateModel
from westbench.metrics.weighted import effective_sample_size

from .controls_data import helix_groundtruth


@pytest.fixture(scope="module")
def groundtruth():
    return helix_groundtruth(runs=12, per_run=30, seed=3)


def frames_of(n: int, seed: int = 0, tics: np.ndarray | None = None) -> Frames:
    rng = np.random.default_rng(seed)
    frames = Frames(
        ca=np.cumsum(rng.normal(0, 0.2, (n, 5, 3)), axis=1).astype(np.float32),
        tics=rng.normal(size=(n, 4)).astype(np.float32) if tics is None else tics,
        weight=np.full(n, 1.0 / n),
        traj=np.arange(n) // 5,
        time_ps=(np.arange(n) % 5).astype(np.float64),
        iteration=np.zeros(n, dtype=np.int64),
        forces=np.zeros((n, 5, 3), dtype=np.float32),
    )
    frames.attrs = {"runs_from": "generate"}
    return frames


def test_kept_keeps_what_the_suite_reads_and_the_attributes():
    frames = frames_of(10)
    out = engines.kept(frames, np.arange(10) < 4)
    assert sorted(out) == sorted(engines.KEPT) and len(out["ca"]) == 4 and out.attrs == frames.attrs


def test_the_mirror_image_changes_the_sign_of_dihedrals_only(groundtruth):
    frames, model = groundtruth
    mirror = engines.mirrored(frames, model)
    np.testing.assert_array_equal(mirror["tics"], frames["tics"].astype(mirror["tics"].dtype))
    np.testing.assert_allclose(bond_lengths(mirror["ca"]), bond_lengths(frames["ca"]), rtol=1e-6)
    np.testing.assert_allclose(bond_angles(mirror["ca"]), bond_angles(frames["ca"]), atol=1e-6)
    np.testing.assert_allclose(dihedrals(mirror["ca"]), -dihedrals(frames["ca"]), atol=1e-5)
    assert np.degrees(dihedrals(frames["ca"])).mean() > 30  # a right-handed helix: the mirror is left-handed


def test_scaled_coordinates_scale_every_distance_and_get_their_own_tics(groundtruth):
    frames, model = groundtruth
    big = engines.scaled(frames, 10.0, model)
    np.testing.assert_allclose(bond_lengths(big["ca"]), 10 * bond_lengths(frames["ca"]), rtol=1e-5)
    np.testing.assert_allclose(radius_of_gyration(big["ca"]), 10 * radius_of_gyration(frames["ca"]), rtol=1e-5)
    np.testing.assert_allclose(big["tics"], model.project(big["ca"]), rtol=1e-5, atol=1e-4)
    assert np.abs(big["tics"] - frames["tics"]).mean() > 1.0  # far from the ground truth's TICs
    np.testing.assert_allclose(dihedrals(big["ca"]), dihedrals(frames["ca"]), atol=1e-5)


def test_rigid_motion_changes_no_distance_and_no_tic(groundtruth):
    frames, model = groundtruth
    moved = engines.rigidly_moved(frames, 5, model)
    assert np.abs(moved["ca"] - frames["ca"]).max() > 0.1
    np.testing.assert_allclose(bond_lengths(moved["ca"]), bond_lengths(frames["ca"]), atol=1e-5)
    np.testing.assert_allclose(dihedrals(moved["ca"]), dihedrals(frames["ca"]), atol=1e-3)
    np.testing.assert_allclose(moved["tics"], frames["tics"], atol=1e-3)


def test_noise_broadens_the_bonds(groundtruth):
    frames, model = groundtruth
    noisy = engines.noisy(frames, 0.03, 1, model)
    assert bond_lengths(noisy["ca"]).std() > 1.3 * bond_lengths(frames["ca"]).std()  # its 0.02 nm noise and 0.03
    np.testing.assert_allclose(noisy["tics"], model.project(noisy["ca"]), rtol=1e-5, atol=1e-4)


def test_moving_coordinates_without_a_tica_model_is_refused():
    with pytest.raises(WestbenchError, match="TICA model"):
        engines.mirrored(frames_of(5), None)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 40), k=st.integers(1, 6), seed=st.integers(0, 100))
def test_a_collapsed_engine_holds_k_conformations_over_all_the_sources_rows(n, k, seed):
    frames = frames_of(n, seed)
    stuck = engines.collapsed(frames, k, seed)
    assert len(stuck["ca"]) == n
    assert len(np.unique(stuck["ca"].reshape(n, -1), axis=0)) == min(k, n)
    for name in ("weight", "traj", "time_ps"):
        np.testing.assert_array_equal(stuck[name], frames[name])
    # Each row's TICs are those of its conformation: the pair stays one frame of the ground truth.
    rows = [int(np.flatnonzero((frames["ca"] == c).all(axis=(1, 2)))[0]) for c in stuck["ca"]]
    np.testing.assert_array_equal(stuck["tics"], frames["tics"][rows])


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 30), delta=st.floats(-5, 5), factor=st.floats(0.1, 5), seed=st.integers(0, 50))
def test_shift_and_spread_move_the_tics_only(n, delta, factor, seed):
    frames = frames_of(n, seed)
    moved = engines.shifted(frames, 0, delta)
    np.testing.assert_allclose(moved["tics"][:, 0], frames["tics"][:, 0] + delta, rtol=1e-6, atol=1e-5)
    np.testing.assert_array_equal(moved["tics"][:, 1:], frames["tics"][:, 1:])
    wide = engines.spread(frames, factor)
    mean = frames["tics"].astype(np.float64).mean(axis=0)
    np.testing.assert_allclose(wide["tics"], mean + factor * (frames["tics"] - mean), rtol=1e-5, atol=1e-5)
    for out in (moved, wide):
        np.testing.assert_array_equal(out["ca"], frames["ca"])


def test_a_hotter_equilibrium_is_broader_and_a_ratio_of_one_changes_nothing():
    rng = np.random.default_rng(0)
    frames = frames_of(4000, 1, tics=rng.normal(size=(4000, 4)))
    same = engines.reweighted(frames, 1.0, 0)
    np.testing.assert_allclose(same["weight"], frames["weight"], rtol=1e-12)
    hot = engines.reweighted(frames, 1.5, 0)
    _, sd = engines.weighted_mean_sd(frames["tics"][:, :2], hot["weight"])
    # A Gaussian at T' = 1.5 T has 1.5 times the variance (the kernel estimate smooths it a little; at T' >= 2 T the
    # importance weights of a Gaussian have no finite variance, and the estimate none to test).
    assert np.all((sd**2 > 1.25) & (sd**2 < 1.9)), sd
    cold = engines.reweighted(frames, 0.5, 0)
    _, sd_cold = engines.weighted_mean_sd(frames["tics"][:, :2], cold["weight"])
    assert np.all(sd_cold**2 < 0.7)
    assert effective_sample_size(hot["weight"]) < 4000 and hot["weight"].sum() == pytest.approx(1.0)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 20), value=st.floats(-3, 3))
def test_frames_without_spread_along_tic01_cannot_be_reweighted(n, value):
    frames = frames_of(n, tics=np.full((n, 4), value, dtype=np.float32))
    with pytest.raises(WestbenchError, match="no density"):
        engines.reweighted(frames, 1.5, 0)


def test_the_missing_state_is_the_macrostate_closest_to_the_share():
    rng = np.random.default_rng(2)
    centre = np.repeat([-3.0, 0.0, 3.0], [100, 240, 60])  # shares 0.25, 0.6, 0.15
    frames = frames_of(400, tics=(centre[:, None] + rng.normal(0, 0.3, (400, 4))).astype(np.float32))
    model = MacrostateModel(np.array([[-3.0], [0.0], [3.0]]), np.array([0, 1, 2]), 1)
    without, what = engines.without_state(frames, model, 0.25)
    assert len(without["ca"]) == 300 and np.all(without["tics"][:, 0] > -1.5) and "macrostate 0" in what
    without, what = engines.without_state(frames, model, 0.1)
    assert len(without["ca"]) == 340 and "macrostate 2" in what


@settings(max_examples=20, deadline=None)
@given(n=st.integers(4, 60), share=st.floats(0.05, 0.5), seed=st.integers(0, 50))
def test_without_macrostates_the_far_end_of_tic0_goes(n, share, seed):
    frames = frames_of(n, seed)
    try:
        without, what = engines.without_state(frames, None, share)
    except WestbenchError as exc:
        assert "no state to remove" in str(exc)
        return
    removed = n - len(without["ca"])
    assert 0 < removed < n and "far end of TIC 0" in what
    assert without["tics"][:, 0].max() <= np.sort(frames["tics"][:, 0])[n - removed]


def test_the_state_to_remove_leaves_enough():
    assert engines.state_to_remove(np.array([0.8, 0.2]), 0.9) == 1
    assert engines.state_to_remove(np.array([0.0, 1.0]), 0.25) is None
