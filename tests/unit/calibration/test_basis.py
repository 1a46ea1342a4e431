"""The study's WE basis states: frames of distinct ground-truth runs, seeded."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.calibration.basis import draw_basis_states, engine_starts, starts_ess, write_engine_starts
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


@pytest.fixture(scope="module")
def go_study(tmp_path_factory):
    """The study's reference potential (chignolin's Go model), a weaker copy, and states around the fold."""
    import torch

    from westbench.cg.model import load_energy_model
    from westbench.cg.native import native_ca
    from westbench.cg.reference import build_reference

    folder = tmp_path_factory.mktemp("go")
    build_reference("1UAO", {}, folder / "reference.pt")
    build_reference("1UAO", {}, folder / "weaker.pt", contact_scale=0.8)
    reference, weaker = (load_energy_model(folder / f"{name}.pt") for name in ("reference", "weaker"))
    native = native_ca("1UAO")
    rng = np.random.default_rng(3)
    positions = native[None] + rng.normal(scale=0.03, size=(64, *native.shape))
    with torch.no_grad():
        energy = reference(torch.as_tensor(positions)).numpy()
    return {"folder": folder, "reference": reference, "weaker": weaker, "positions": positions, "energy": energy}


def test_an_engine_of_the_same_potential_and_temperature_starts_equally_likely(go_study):
    states = {"positions": go_study["positions"], "run": np.arange(64), "frame": np.zeros(64, int)}
    same = engine_starts(states, go_study["reference"], go_study["reference"], 300.0, 300.0)
    assert np.allclose(same["weight"], 1 / 64, rtol=0, atol=1e-15) and same["ess"] == pytest.approx(64)
    assert np.array_equal(same["positions"], states["positions"]) and np.array_equal(same["run"], states["run"])


def test_a_hotter_engine_weights_high_energy_states_up_as_boltzmann_says(go_study):
    """w_i proportional to exp(-U_i / kT' + U_i / kT): at T' > T the log weights rise linearly with the energy."""
    from westbench.cg.internal_coordinates import kt

    states = {"positions": go_study["positions"], "run": np.arange(64), "frame": np.zeros(64, int)}
    hot = engine_starts(states, go_study["reference"], go_study["reference"], 300.0, 360.0)
    slope = 1 / kt(300.0) - 1 / kt(360.0)
    fitted = np.polyfit(go_study["energy"], np.log(hot["weight"]), 1)[0]
    assert fitted == pytest.approx(slope, rel=1e-6) and hot["weight"].sum() == pytest.approx(1.0)
    assert 1.0 <= hot["ess"] < 64


def test_the_written_starts_are_the_engines_basis_states_with_their_probabilities(go_study, tmp_path):
    from westbench.cg.engine import CGEngine, load_basis_state_weights
    from westbench.io.atomic import savez

    folder = go_study["folder"]
    savez(tmp_path / "states.npz", positions=go_study["positions"], run=np.arange(64), frame=np.zeros(64, int))
    written = write_engine_starts(
        tmp_path / "states.npz",
        folder / "reference.pt",
        folder / "weaker.pt",
        {"reference": 300.0, "engine": 300.0},
        tmp_path / "starts.npz",
    )
    weights = load_basis_state_weights(tmp_path / "starts.npz", go_study["positions"].shape[1])
    assert np.allclose(weights, written["weight"]) and not np.allclose(weights, 1 / 64)
    assert starts_ess(weights) == pytest.approx(float(written["ess"]))
    engine = CGEngine(
        folder / "weaker.pt",
        "chignolin",
        basis_positions=go_study["positions"][0],
        basis_states=tmp_path / "starts.npz",
    )
    assert engine.basis_state_weights() == pytest.approx(weights.tolist()) and len(engine.basis_states()) == 64
