"""The CG engine in weighted ensemble: one batch per iteration, independent walkers, exploding models."""

import h5py
import numpy as np
import pandas as pd
import pytest
import torch

from westbench.cg.engine import CGEngine, load_basis_state_weights, load_basis_states
from westbench.cg.model import CGModel, save_model
from westbench.cg.prior import fit_prior
from westbench.errors import WestbenchError
from westbench.io.atomic import savez
from westbench.io.frames import ok_frames, read_frames
from westbench.we.engine_entry import BATCHED
from westbench.we.export import export_run
from westbench.we.run import run_we
from westbench.we.store import SegmentStore

from .toy import harmonic_chain

SMALL = {"embedding": 16, "interaction_layers": 2, "rbf": 8}


@pytest.fixture(scope="module")
def chain():
    return harmonic_chain(n_beads=8, n_frames=100, seed=3)


def write_model(chain, path, scale=1.0):
    torch.manual_seed(0)
    model = CGModel({"toy": "GYDPETGT"}, network=SMALL)
    model.set_prior("toy", fit_prior(chain[0]))
    with torch.no_grad():  # "weights scaled up": the network's energy head dominates the prior
        model.network.head[-1].weight.mul_(scale)
        model.network.head[-1].bias.mul_(scale)
    save_model(model, path)
    return path


def we_config(model, start, calls_file, seed=5):
    engine = {
        "class": "tests.unit.cg.toy:CountingCGEngine",
        "block_size": BATCHED,
        "options": {
            "calls_dir": str(calls_file.parent),
            "model": str(model),
            "protein": "toy",
            "basis_positions": start.tolist(),
            "langevin": {"bead_mass_amu": 100.0},
        },
    }
    return {
        "engine": {k: v for k, v in engine.items() if k != "block_size"},
        "block_size": BATCHED,
        "pcoord": {"type": "position", "ndim": 2},
        "seed": seed,
        "bins_per_dim": 3,
        "walkers_per_bin": 2,
        "steps_per_segment": 20,
        "save_every": 5,
    }


def test_a_walker_does_not_depend_on_the_rest_of_its_batch(chain, tmp_path):
    engine = CGEngine(write_model(chain, tmp_path / "m.pt"), "toy", basis_positions=chain[2], bead_mass_amu=100.0)
    other = engine.basis_state()
    other.positions = other.positions + 0.01
    alone = engine.propagate([engine.basis_state()], 30, 10, [7])[0]
    batched = engine.propagate([other, engine.basis_state(), other], 30, 10, [3, 7, 9])
    assert np.allclose(batched[1].frames, alone.frames, atol=1e-5)
    assert not np.allclose(batched[0].frames, alone.frames, atol=1e-3)


def test_we_propagates_each_iteration_as_one_batch(chain, tmp_path):
    (tmp_path / "calls").mkdir()
    calls = tmp_path / "calls" / "calls.txt"
    run_we(tmp_path / "run", cfg=we_config(write_model(chain, tmp_path / "m.pt"), chain[2], calls), max_iterations=3)
    with h5py.File(tmp_path / "run" / "west.h5", "r") as handle:
        segments = [len(handle[f"iterations/iter_{n:08d}/seg_index"]) for n in (1, 2, 3)]
    assert [int(line) for line in calls.read_text().split()] == segments and segments[-1] > 3


def test_exploding_model_is_detected_and_the_run_finishes_with_those_walkers_marked(chain, tmp_path, caplog):
    model = write_model(chain, tmp_path / "boom.pt", scale=1e6)
    run_dir = tmp_path / "run"
    summary = run_we(run_dir, cfg=we_config(model, chain[2], tmp_path / "calls.txt"), max_iterations=3)
    assert summary["iterations"] == 3
    ended = SegmentStore(run_dir / "segments").ended_segments()
    assert sum(ended.values()) > 0 and set(ended) <= {"exploded", "imploded"}
    assert "ended at step" in caplog.text and ("ended: exploded" in caplog.text or "ended: imploded" in caplog.text)
    export_run(run_dir, tmp_path / "frames.h5", tmp_path / "cost.csv", save_interval_ps=0.02)
    frames = read_frames(tmp_path / "frames.h5")
    assert (frames["ok"] == 0).sum() > 0 and np.isfinite(frames["ca"]).all()
    assert pd.read_csv(tmp_path / "cost.csv")["ended_segments"].sum() == sum(ended.values())
    assert len(ok_frames(frames)) == int(frames["ok"].sum())
    with h5py.File(run_dir / "west.h5", "r") as handle:  # WE weights are kept: ended walkers restart from their start
        for n in (1, 2, 3):
            assert handle[f"iterations/iter_{n:08d}/seg_index"]["weight"].sum() == pytest.approx(1.0)


def test_ended_walker_restarts_from_its_start(chain, tmp_path):
    engine = CGEngine(
        write_model(chain, tmp_path / "boom.pt", scale=1e6), "toy", basis_positions=chain[2], bead_mass_amu=100.0
    )
    result = engine.propagate([engine.basis_state()], 20, 5, [1])[0]
    assert result.status in ("exploded", "imploded") and result.message.startswith("step ")
    assert np.array_equal(result.final.positions, engine.basis_state().positions)
    assert np.isfinite(result.frames).all()


def test_retrained_model_restarts_the_we_run_instead_of_resuming_it(chain, tmp_path):
    (tmp_path / "calls").mkdir()
    calls, model = tmp_path / "calls" / "calls.txt", write_model(chain, tmp_path / "m.pt")
    run_we(tmp_path / "run", cfg=we_config(model, chain[2], calls), max_iterations=2)
    run_we(tmp_path / "run", cfg=we_config(model, chain[2], calls), max_iterations=2)
    assert len(calls.read_text().split()) == 2  # same inputs: nothing left to do
    write_model(chain, model, scale=2.0)  # retrained: same path, new weights
    summary = run_we(tmp_path / "run", cfg=we_config(model, chain[2], calls), max_iterations=2)
    assert summary["iterations"] == 2 and len(calls.read_text().split()) == 4


def test_padded_bucket_forces_equal_the_unpadded_call(chain, tmp_path):
    """The CUDA-graph path pads a batch to its bucket (next power of two) with copies of its first walker;
    the padded call's forces of the real walkers equal the plain call's (checked here eagerly on the CPU;
    benchmarks/we_gpu_check.py checks the captured graphs on a GPU)."""
    from westbench.cg.capture import BucketedForces

    engine = CGEngine(write_model(chain, tmp_path / "m.pt"), "toy", basis_positions=chain[2], bead_mass_amu=100.0)
    padded = BucketedForces(engine.forces, pad=True)
    for n in (1, 3, 5, 12):
        x = torch.as_tensor(chain[0][10 : 10 + n], dtype=torch.float32)
        plain = engine.forces(x)
        assert torch.allclose(padded(x), plain, rtol=1e-5, atol=1e-4) and padded(x).shape == plain.shape
        assert torch.abs(plain).max() > 1.0
    assert padded.sizes == [1, 4, 8, 16]
    assert engine.batch_forces.capture is False  # eager on the CPU


def test_an_ended_walker_keeps_its_last_valid_frame_and_the_others_go_on(chain, tmp_path):
    engine = CGEngine(
        write_model(chain, tmp_path / "m.pt"),
        "toy",
        basis_positions=chain[2],
        bead_mass_amu=100.0,
        explosion={"bond_max_angstrom": 4.2},
    )
    calm = CGEngine(
        write_model(chain, tmp_path / "m.pt"),
        "toy",
        basis_positions=chain[2],
        bead_mass_amu=100.0,
        explosion={"bond_max_angstrom": 100.0},
    )
    stretched = engine.basis_state()
    stretched.positions = stretched.positions.copy()
    stretched.positions[-1] += 0.03  # a bond near the 4.2 A bound: breaks it within a few frames
    results = engine.propagate([engine.basis_state(), stretched] * 3, 100, 10, list(range(1, 7)))
    free = calm.propagate([engine.basis_state(), stretched] * 3, 100, 10, list(range(1, 7)))
    ended = [r for r in results if r.status != "ok"]
    assert ended, "no walker crossed the bond bound"
    for result, reference in zip(results, free):
        if result.status == "ok":  # the ended walkers of the batch did not disturb the others
            assert np.allclose(result.frames, reference.frames, atol=1e-5)
            continue
        assert result.status == "exploded" and result.message.startswith("step ")
        step = int(result.message.split()[1].rstrip(":"))
        last = step // 10 - 1  # the frame before the check that ended it
        assert np.all(result.frames[last:] == result.frames[max(last, 0)])
        if last > 0:  # up to there, the same trajectory as without the bound
            assert np.allclose(result.frames[:last], reference.frames[:last], atol=1e-5)


def test_the_cg_engine_starts_from_the_files_states(tmp_path):
    chain = harmonic_chain(n_beads=8, n_frames=20, seed=3)
    model = write_model(chain, tmp_path / "model.pt")
    states = np.asarray(chain[0][:3], dtype=np.float64)
    savez(tmp_path / "basis_states.npz", positions=states)
    engine = CGEngine(model, "toy", basis_positions=chain[0][0], basis_states=tmp_path / "basis_states.npz")
    assert [np.array_equal(s.positions, x) for s, x in zip(engine.basis_states(), states)] == [True] * 3
    assert np.array_equal(engine.basis_state().positions, chain[0][0])  # the structure stays the beads' basis
    assert len(CGEngine(model, "toy", basis_positions=chain[0][0]).basis_states()) == 1


@pytest.mark.parametrize(
    "positions, message",
    [
        (np.zeros((2, 7, 3)), r"shape \(2, 7, 3\); the basis structure has 8 beads"),
        (np.zeros((0, 8, 3)), r"shape \(0, 8, 3\)"),
        (np.full((1, 8, 3), np.nan), "non-finite positions"),
    ],
)
def test_a_bad_basis_states_file_is_named(tmp_path, positions, message):
    savez(tmp_path / "states.npz", positions=positions)
    with pytest.raises(WestbenchError, match=r"states\.npz: .*" + message):
        load_basis_states(tmp_path / "states.npz", 8)
    savez(tmp_path / "other.npz", coordinates=np.zeros((1, 8, 3)))
    with pytest.raises(WestbenchError, match=r"other\.npz: not a basis-states file"):
        load_basis_states(tmp_path / "other.npz", 8)


@pytest.mark.parametrize("weight", [[0.5, 0.5, 0.0], [1.5, -0.5], [0.5, 0.6], [np.nan, 1.0]])
def test_basis_state_weights_that_are_no_probabilities_are_named(tmp_path, weight):
    savez(tmp_path / "states.npz", positions=np.zeros((2, 8, 3)), weight=np.asarray(weight))
    with pytest.raises(WestbenchError, match=r"states\.npz: weight must hold one probability per state \(2\)"):
        load_basis_state_weights(tmp_path / "states.npz", 8)
    savez(tmp_path / "equal.npz", positions=np.zeros((2, 8, 3)))
    assert load_basis_state_weights(tmp_path / "equal.npz", 8) is None  # no weights: equally likely
