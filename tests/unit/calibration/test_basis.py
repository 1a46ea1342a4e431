"""The study's WE basis states: frames of distinct ground-truth runs, seeded."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.calibration.basis import draw_basis_states, engine_starts, write_engine_starts
from westbench.errors import WestbenchError
from westbench.io.frames import write_frames


def write_runs(folder, n_runs, n_frames, n_beads=3):
    """Runs whose frames are told apart by their coordinates: bead 0's x = run, y = frame."""
    paths = []
    for run in range(n_runs):
        ca = np.zeros((n_frames, n_beads, 3), dtype=np.float32)
        ca[:, 0, 0], ca[:, 0, 1] = run, np.arange(n_frames)
        path = folder / f"r{run:04d}.h5"
        write_frames(
            path,
            ca=ca,
            weight=np.full(n_frames, 1.0 / n_frames),
            traj=np.zeros(n_frames),
            time_ps=np.arange(n_frames, dtype=float),
            iteration=np.zeros(n_frames),
        )
        paths.append(path)
    return paths


@settings(max_examples=25, deadline=None)
@given(n_runs=st.integers(1, 8), n_frames=st.integers(1, 6), data=st.data())
def test_each_state_is_a_frame_of_its_own_run_and_the_seed_repeats_the_draw(tmp_path_factory, n_runs, n_frames, data):
    paths = write_runs(tmp_path_factory.mktemp("runs"), n_runs, n_frames)
    count, seed = data.draw(st.integers(1, n_runs)), data.draw(st.integers(1, 2**31 - 1))
    drawn = draw_basis_states(paths, count, seed)
    assert drawn["positions"].shape == (count, 3, 3) and drawn["positions"].dtype == np.float64
    assert len(set(drawn["run"].tolist())) == count  # distinct runs: independent starts
    assert np.array_equal(drawn["positions"][:, 0, 0], drawn["run"])
    assert np.array_equal(drawn["positions"][:, 0, 1], drawn["frame"])
    assert ((0 <= drawn["frame"]) & (drawn["frame"] < n_frames)).all()
    again = draw_basis_states(paths, count, seed)
    assert all(np.array_equal(drawn[key], again[key]) for key in drawn)


def test_every_run_and_frame_can_be_drawn(tmp_path):
    paths = write_runs(tmp_path, 4, 3)
    runs, frames = set(), set()
    for seed in range(1, 60):
        drawn = draw_basis_states(paths, 2, seed)
        runs.update(drawn["run"].tolist())
        frames.update(drawn["frame"].tolist())
    assert runs == {0, 1, 2, 3} and frames == {0, 1, 2}


def test_none_draws_one_state_from_every_run(tmp_path):
    drawn = draw_basis_states(write_runs(tmp_path, 5, 3), None, seed=2)
    assert drawn["run"].tolist() == [0, 1, 2, 3, 4]


def test_more_states_than_runs_is_refused_with_the_setting_to_change(tmp_path):
    with pytest.raises(WestbenchError, match=r"calibration.we.basis_states is 5.*4 runs"):
        draw_basis_states(write_runs(tmp_path, 4, 2), 5, seed=1)


def test_the_study_engines_start_from_the_drawn_states_with_their_own_walkers(workflow):
    """Every study WE job reads the basis-states file; the reference's engines run the study's walkers per bin,
    the trained CG models the embedded default's per-engine value, and neither count leaks into the main study."""
    from types import SimpleNamespace

    rule = workflow.get_rule("calibration_we_run")
    study = workflow.config["calibration"]["we"]
    settings = rule.params.settings
    for engine in ("reference", "temperature_120", "cg_undertrained", "cg_fulltrained"):
        wildcards = SimpleNamespace(protein="chignolin", engine=engine)
        resolved = settings(wildcards)
        for key in ("walkers_per_bin", "max_iterations"):
            assert resolved[key] == study[f"{key}_by_engine"].get(engine, study[key]), (engine, key)
            assert f"{key}_by_engine" not in resolved
        assert "basis_states" not in resolved
    assert study["walkers_per_bin"] == 6 and study["walkers_per_bin_by_engine"]["cg_fulltrained"] == 3
    assert study["max_iterations"] == 50 and study["max_iterations_by_engine"]["cg_undertrained"] == 25
    assert workflow.config["we"]["walkers_per_bin"] == 3  # the main study's own
    from westbench.plan import Plan

    inputs = Plan.from_config(workflow.config).calibration.we_input("reference")
    assert inputs["basis_states"].endswith("we/starts/reference.npz")  # the draw, weighted to its equilibrium


def pooled(n_runs=16, per_run=8, n_beads=3, seed=0):
    """A pooled ground truth (``ca``, ``traj``) whose frames are told apart by bead 0's x (= the frame index)."""
    ca = np.random.default_rng(seed).normal(size=(n_runs * per_run, n_beads, 3))
    ca[:, 0, 0] = np.arange(n_runs * per_run)
    return {"ca": ca, "traj": np.repeat(np.arange(n_runs), per_run)}


def test_an_engine_of_the_references_equilibrium_keeps_the_drawn_states():
    groundtruth = pooled()
    states = {"positions": groundtruth["ca"][::8][:12], "run": np.arange(12), "frame": np.zeros(12, int)}
    kept = engine_starts(states, groundtruth, np.full(128, 1 / 128), seed=4)
    assert not kept["resampled"] and kept["ess"] == pytest.approx(128)
    assert all(np.array_equal(kept[key], states[key]) for key in ("positions", "run", "frame"))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(1, 2**31 - 1), count=st.integers(1, 64), data=st.data())
def test_resampled_starts_follow_the_engines_weights(seed, count, data):
    """Systematic resampling: each frame is picked floor or ceil of count x its weight times (never a frame of
    weight 0), the run and frame recorded are the pick's, and the same seed gives the same starts."""
    groundtruth = pooled()
    raw = np.array(data.draw(st.lists(st.floats(0, 10), min_size=128, max_size=128)))
    assume = raw.sum() > 0 and not np.allclose(raw, raw[0])
    if not assume:
        return
    weights = raw / raw.sum()
    states = {"positions": groundtruth["ca"][:count], "run": np.zeros(count, int), "frame": np.zeros(count, int)}
    starts = engine_starts(states, groundtruth, weights, seed)
    picks = starts["frame"]
    assert starts["resampled"] and len(picks) == count and (weights[picks] > 0).all()
    counts = np.bincount(picks, minlength=128)
    assert (np.abs(counts - count * weights) < 1 + 1e-9).all()
    assert np.array_equal(starts["positions"][:, 0, 0], picks) and np.array_equal(starts["run"], picks // 8)
    again = engine_starts(states, groundtruth, weights, seed)
    assert np.array_equal(again["frame"], picks)


def test_weights_that_are_no_distribution_over_the_ground_truth_are_refused():
    groundtruth = pooled()
    states = {"positions": groundtruth["ca"][:4], "run": np.arange(4), "frame": np.zeros(4, int)}
    for weights in (np.full(100, 0.01), np.r_[-1.0, np.full(127, 2 / 127)], np.zeros(128)):
        with pytest.raises(WestbenchError, match="rerun rule calibration_reweighting"):
            engine_starts(states, groundtruth, weights, seed=1)


def test_a_hot_engine_starts_where_its_equilibrium_is_not_where_the_references_is(tmp_path):
    """The Go model's ground truth reweighted to 1.2 times the temperature (the study's own weights): the resampled
    starts' mean energy is the reweighted ground truth's, above the draw's."""
    import torch

    from westbench.calibration.reweighting import reweighting_weights
    from westbench.cg.model import load_energy_model
    from westbench.cg.native import native_ca
    from westbench.cg.reference import build_reference
    from westbench.io.atomic import savez
    from westbench.io.frames import write_frames

    build_reference("1UAO", {}, tmp_path / "reference.pt")
    model = load_energy_model(tmp_path / "reference.pt")
    native = native_ca("1UAO")
    rng = np.random.default_rng(3)
    ca = native[None] + rng.normal(scale=0.005, size=(2000, *native.shape))
    weights = reweighting_weights(ca, model, model, 300.0, 360.0)
    write_frames(
        tmp_path / "gt.h5",
        ca=ca.astype(np.float32),
        weight=np.full(2000, 1 / 2000),
        traj=np.repeat(np.arange(200), 10),
        time_ps=np.tile(np.arange(10.0), 200),
        iteration=np.zeros(2000),
    )
    np.savez(tmp_path / "reweighting.npz", hot=weights, reference=np.full(2000, 1 / 2000))
    savez(tmp_path / "states.npz", positions=ca[::10][:100], run=np.arange(100), frame=np.zeros(100, int), seed=3)
    hot = write_engine_starts(
        tmp_path / "states.npz", tmp_path / "gt.h5", tmp_path / "reweighting.npz", "hot", 7, tmp_path / "hot.npz"
    )
    with torch.no_grad():
        energy = model(torch.as_tensor(ca)).numpy()
        starts_energy = model(torch.as_tensor(hot["positions"])).numpy()
    assert hot["resampled"] and 1 < hot["ess"] < 2000
    assert starts_energy.mean() > energy.mean() + 0.5 * (weights @ energy - energy.mean())
    same = write_engine_starts(
        tmp_path / "states.npz",
        tmp_path / "gt.h5",
        tmp_path / "reweighting.npz",
        "reference",
        7,
        tmp_path / "reference.npz",
    )
    assert not same["resampled"] and np.allclose(same["positions"], ca[::10][:100])
    with pytest.raises(WestbenchError, match="has no weights of 'cold'"):
        write_engine_starts(
            tmp_path / "states.npz", tmp_path / "gt.h5", tmp_path / "reweighting.npz", "cold", 7, tmp_path / "cold.npz"
        )


def test_an_engine_with_its_own_sample_starts_from_that_sample_not_from_the_draw():
    """Its known answer is its own sample (uniform weights, the ground truth's 0): the starts are that sample's
    frames, never the reference's draw, even though the sample's own weights are uniform."""
    from westbench.calibration.known_answer import KnownAnswer

    groundtruth = {"ca": np.zeros((8, 1, 3)), "traj": np.arange(8), "tics": np.zeros((8, 2))}
    own = {"ca": np.full((4, 1, 3), 5.0), "traj": np.arange(4), "tics": np.ones((4, 2)), "weight": np.full(4, 0.25)}
    pooled = KnownAnswer(np.zeros(8), own).pooled(groundtruth)
    states = {"positions": groundtruth["ca"][:4], "run": np.arange(4), "frame": np.zeros(4, int)}
    starts = engine_starts(states, pooled, pooled["weight"], seed=1)
    assert starts["resampled"] and (starts["positions"] == 5.0).all()
