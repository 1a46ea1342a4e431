"""WE end to end with WESTPA on a toy double well: weights, reproducibility, resume."""

import h5py
import numpy as np
import pytest

from westbench.we.restart import completed_iterations
from westbench.we.run import run_we

pytestmark = pytest.mark.slow

TOY = {"class": "tests.unit.we.toy:DoubleWell", "options": {"barrier": 2.0, "dt": 2e-3}}
CFG = {
    "engine": TOY,
    "pcoord": {"type": "position", "ndim": 2},
    "seed": 9,
    "bins_per_dim": 7,
    "walkers_per_bin": 3,
    "steps_per_segment": 100,
    "save_every": 10,
}


def weighted_x(west_h5, first_iteration):
    xs, weights = [], []
    with h5py.File(west_h5, "r") as handle:
        last = int(handle.attrs["west_current_iteration"]) - 1
        for n in range(first_iteration, last + 1):
            group = handle[f"iterations/iter_{n:08d}"]
            xs.append(group["pcoord"][:, -1, 0])
            weights.append(group["seg_index"]["weight"])
    return np.concatenate(xs), np.concatenate(weights)


@pytest.fixture(scope="module")
def toy_run(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("toy")
    summary = run_we(run_dir, cfg=CFG, segs_per_state=3, max_iterations=60)
    return run_dir, summary


def test_weights_sum_to_one_every_iteration(toy_run):
    run_dir, summary = toy_run
    assert summary["iterations"] == 60 == completed_iterations(run_dir / "west.h5")
    with h5py.File(run_dir / "west.h5", "r") as handle:
        for n in range(1, 61):
            assert handle[f"iterations/iter_{n:08d}/seg_index"]["weight"].sum() == pytest.approx(1.0, abs=1e-10)


def test_weighted_histogram_is_boltzmann(toy_run):
    """The WE-weighted distribution of x over iterations 21-60 matches exp(-V(x)): total variation < 0.1."""
    from tests.unit.we.toy import DoubleWell

    x, w = weighted_x(toy_run[0] / "west.h5", 21)
    edges = np.linspace(-2.0, 2.0, 21)
    histogram, _ = np.histogram(np.clip(x, -1.999, 1.999), bins=edges, weights=w)
    histogram /= histogram.sum()
    assert 0.5 * np.abs(histogram - DoubleWell.boltzmann_x(edges)).sum() < 0.1
    # Both wells are populated although every walker started in the left one.
    assert w[x > 0].sum() / w.sum() == pytest.approx(0.5, abs=0.15)


def pcoords_and_weights(west_h5):
    with h5py.File(west_h5, "r") as handle:
        last = int(handle.attrs["west_current_iteration"]) - 1
        return [
            (handle[f"iterations/iter_{n:08d}/pcoord"][()], handle[f"iterations/iter_{n:08d}/seg_index"]["weight"])
            for n in range(1, last + 1)
        ]


def assert_same_run(a, b):
    assert len(a) == len(b)
    for (pa, wa), (pb, wb) in zip(a, b):
        assert np.array_equal(pa, pb) and np.array_equal(wa, wb)


def test_same_seed_same_west_h5_other_seed_differs(toy_run, tmp_path):
    run_we(tmp_path / "again", cfg=CFG, segs_per_state=3, max_iterations=15)
    reference = pcoords_and_weights(toy_run[0] / "west.h5")[:15]
    assert_same_run(pcoords_and_weights(tmp_path / "again" / "west.h5"), reference)
    run_we(tmp_path / "other", cfg={**CFG, "seed": 10}, segs_per_state=3, max_iterations=15)
    other = pcoords_and_weights(tmp_path / "other" / "west.h5")
    assert not all(np.array_equal(p, q) for (p, _), (q, _) in zip(other, reference))


def test_killed_run_resumes_without_losing_or_repeating_segments(toy_run, tmp_path):
    """SIGKILL a run mid-iteration (slow segments), rerun: identical to the uninterrupted run."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from ...conftest import REPO, source_env

    run_dir = tmp_path / "killed"
    slow = {**CFG, "engine": {"class": "tests.unit.we.toy:SlowDoubleWell", "options": TOY["options"]}}
    script = (
        "from westbench.we.run import run_we\nfrom tests.unit.we.test_we_toy import CFG\n"
        "run_we(%r, cfg=%r, segs_per_state=3, max_iterations=15)\n" % (str(run_dir), slow)
    )
    process = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=REPO,
        env=source_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    # Segment files of iteration 4 on disk: three iterations are done and the fourth is under way.
    while not any((run_dir / "segments").glob("iter_000004/seg_*.npz")):
        assert process.poll() is None, process.stderr.read()[-3000:]
        assert time.monotonic() < deadline
        time.sleep(0.02)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    interrupted_at = completed_iterations(run_dir / "west.h5")
    assert 3 <= interrupted_at < 15
    summary = run_we(run_dir, cfg=slow, segs_per_state=3, max_iterations=15)
    assert summary["iterations"] == 15
    assert_same_run(pcoords_and_weights(run_dir / "west.h5"), pcoords_and_weights(toy_run[0] / "west.h5")[:15])
    with h5py.File(run_dir / "west.h5", "r") as handle:
        for n in range(1, 16):
            index = handle[f"iterations/iter_{n:08d}/seg_index"]
            assert index["weight"].sum() == pytest.approx(1.0, abs=1e-10)
            assert (index["status"] == 2).all()  # every segment complete exactly once


def test_export_matches_seg_index_by_segment_id(toy_run, tmp_path):
    from westbench.io.frames import read_frames
    from westbench.we.export import export_run

    run_dir = toy_run[0]
    summary = export_run(run_dir, tmp_path / "frames.h5", tmp_path / "cost.csv", save_interval_ps=0.01)
    frames = read_frames(tmp_path / "frames.h5")
    assert summary["iterations"] == 60 and len(frames) == summary["frames"]
    with h5py.File(run_dir / "west.h5", "r") as handle:
        for n in (1, 30, 60):
            group = handle[f"iterations/iter_{n:08d}"]
            rows = frames["iteration"] == n
            for seg_id in np.unique(frames["seg_id"][rows]):
                mine = rows & (frames["seg_id"] == seg_id)
                assert np.all(frames["weight"][mine] == group["seg_index"]["weight"][seg_id])
                # The exported frames are that segment's pcoord (frames 1..10; pcoord[0] is the parent's end).
                assert np.allclose(frames["ca"][mine][:, 0, :2], group["pcoord"][seg_id, 1:], atol=1e-6)
    import pandas as pd

    cost = pd.read_csv(tmp_path / "cost.csv")
    assert list(cost["iteration"]) == list(range(1, 61)) and (cost["segment_cpu_seconds"] >= 0).all()


def test_w_pdist_reads_the_run(toy_run, tmp_path):
    import subprocess
    import sys

    run_dir = toy_run[0]
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "westpa.cli.tools.w_pdist",
            "-W",
            str(run_dir / "west.h5"),
            "-o",
            str(tmp_path / "pdist.h5"),
            "--first-iter",
            "1",
            "--last-iter",
            "60",
        ],
        cwd=run_dir,
        capture_output=True,
        text=True,
        timeout=300,
        env={**__import__("os").environ, "WEST_SIM_ROOT": str(run_dir)},
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    with h5py.File(tmp_path / "pdist.h5", "r") as handle:
        histograms = handle["histograms"][()]
        assert histograms.shape[0] == 60  # one histogram per iteration
        assert np.isfinite(histograms).all() and (histograms.reshape(60, -1).sum(axis=1) > 0).all()


def test_coverage_target_and_wallclock_stop_the_run(tmp_path):
    calls = []

    def coverage(west_h5):
        calls.append(completed_iterations(west_h5))
        return 0.3 * completed_iterations(west_h5)

    summary = run_we(
        tmp_path / "coverage", cfg=CFG, max_iterations=50, check_every=2, coverage_target=0.5, coverage_fn=coverage
    )
    assert summary["iterations"] == 2 and summary["stopped_because"].startswith("coverage 0.600")
    assert calls == [2]  # checked after each round of check_every iterations
    summary = run_we(tmp_path / "wallclock", cfg=CFG, max_iterations=50, max_wallclock_s=1e-3)
    assert summary["stopped_because"] == "wallclock" and summary["iterations"] < 50


def test_zmq_master_with_a_node_process_gives_the_serial_run(toy_run, tmp_path, monkeypatch):
    """The multi-node mode: a dedicated ZeroMQ master here, a node process with two workers (as srun
    starts one per allocated node); same seeds, so the same walkers and weights as the serial run."""
    from ...conftest import REPO

    monkeypatch.setenv("PYTHONPATH", str(REPO))  # the node's workers import the toy engine from tests/
    summary = run_we(tmp_path / "zmq", cfg=CFG, segs_per_state=3, max_iterations=5, work_manager="zmq", n_workers=2)
    assert summary["iterations"] == 5
    reference = pcoords_and_weights(toy_run[0] / "west.h5")[:5]
    assert_same_run(pcoords_and_weights(tmp_path / "zmq" / "west.h5"), reference)


def test_basis_states_of_the_engine_are_westpas_equally_likely_and_each_starts_its_walkers(tmp_path):
    """An engine with one basis state per well (the symmetric well's equilibrium, half each): WESTPA gets both, at
    probability 1/2, each with its own pcoord, and the first iteration already holds half the weight on each side,
    where a run from the left well alone holds none on the right (the barrier is crossed far later)."""
    spread = {**CFG, "engine": {"class": "tests.unit.we.toy:SpreadDoubleWell", "options": TOY["options"]}}
    run_we(tmp_path / "spread", cfg=spread, segs_per_state=3, max_iterations=2)
    run_we(tmp_path / "left", cfg=CFG, segs_per_state=3, max_iterations=2)
    with h5py.File(tmp_path / "spread" / "west.h5", "r") as handle:
        group = handle["ibstates/0"]
        assert [row["auxref"].decode() for row in group["bstate_index"]] == ["0", "1"]
        assert group["bstate_index"]["probability"] == pytest.approx([0.5, 0.5])
        assert group["bstate_pcoord"][:, 0] == pytest.approx([-1.0, 1.0])
        starts = handle["iterations/iter_00000001/pcoord"][:, 0, 0]
        assert set(np.round(starts, 6)) == {-1.0, 1.0}  # every walker starts at one of the two states
    for name, right in (("spread", 0.5), ("left", 0.0)):
        with h5py.File(tmp_path / name / "west.h5", "r") as handle:
            first = handle["iterations/iter_00000001"]
            x, w = first["pcoord"][:, -1, 0], first["seg_index"]["weight"]
        assert w[x > 0].sum() == pytest.approx(right, abs=0.05), name


def test_basis_state_weights_an_engine_gives_are_westpas_probabilities_and_the_first_iterations_weights(tmp_path):
    """A study engine starts at its own equilibrium (westbench.calibration.basis.engine_starts): the engine's
    weights become the basis states' probabilities, and the first iteration carries them, 0.8 left and 0.2 right."""
    weighted = {
        **CFG,
        "engine": {
            "class": "tests.unit.we.toy:WeightedDoubleWell",
            "options": {**TOY["options"], "weights": [0.8, 0.2]},
        },
    }
    run_we(tmp_path, cfg=weighted, segs_per_state=3, max_iterations=1)
    with h5py.File(tmp_path / "west.h5", "r") as handle:
        assert handle["ibstates/0"]["bstate_index"]["probability"] == pytest.approx([0.8, 0.2])
        first = handle["iterations/iter_00000001"]
        x, w = first["pcoord"][:, 0, 0], first["seg_index"]["weight"]
    assert w[x < 0].sum() == pytest.approx(0.8) and w[x > 0].sum() == pytest.approx(0.2)
