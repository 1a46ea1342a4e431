"""The WE export on hand-made run folders (a west.h5 segment index and the segment store, no WESTPA run): weights
matched to frames by segment id whatever the store's row order, frame times and numbers, cost.csv, the TICs and
coverage column, ended walkers' and dropped frames left out with the piece split at the gap, and the errors."""

import tempfile
from pathlib import Path

import h5py
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.geometry.coverage_grid import CoverageGrid
from westbench.io.frames import DROPPED_ATTR, BadFramesError, read_frames
from westbench.tica import FEATURE_CA_DISTANCES, TicaModel
from westbench.we.export import export_run
from westbench.we.store import SegmentStore

BEADS, FRAMES = 4, 3


def segment(rng, weight, status="ok", frames=FRAMES):
    """One segment: its WE weight, its saved bead frames (nm) and the status its engine returned."""
    return {"weight": weight, "frames": rng.normal(0, 0.5, (frames, BEADS, 3)), "status": status}


def write_run(folder, iterations, order=None, wall=0.5, cpu=0.25) -> Path:
    """A finished WE run: ``west.h5`` with each iteration's seg_index (row = segment id) and the store's frames
    file of each iteration, its rows in ``order(n_segments)`` (reversed by default: never the segment order)."""
    folder = Path(folder)
    store = SegmentStore(folder / "segments")
    store.root.mkdir(parents=True, exist_ok=True)
    order = order or (lambda n: np.arange(n)[::-1])
    with h5py.File(folder / "west.h5", "w") as handle:
        handle.attrs["west_current_iteration"] = len(iterations) + 1
        for n, segments in enumerate(iterations, start=1):
            index = np.zeros(len(segments), dtype=[("weight", "f8"), ("walltime", "f8"), ("cputime", "f8")])
            index["weight"] = [s["weight"] for s in segments]
            index["walltime"], index["cputime"] = wall, cpu
            handle.create_dataset(f"iterations/iter_{n:08d}/seg_index", data=index)
            rows = np.asarray(order(len(segments)), dtype=np.int64)
            np.savez(
                store.frames_path(n),
                seg_id=rows,
                frames=np.stack([segments[i]["frames"] for i in rows]).astype(np.float32),
                status=np.array([segments[i]["status"] for i in rows]),
                message=np.array([""] * len(rows)),
            )
    return folder


@pytest.fixture
def run(tmp_path):
    rng = np.random.default_rng(11)
    iterations = [
        [segment(rng, 0.5), segment(rng, 0.3), segment(rng, 0.2)],
        [segment(rng, 0.6), segment(rng, 0.4, status="exploded")],
    ]
    return write_run(tmp_path / "run", iterations), iterations


def test_each_frame_carries_its_segments_weight_time_and_number_whatever_the_stores_row_order(run, tmp_path):
    run_dir, iterations = run
    summary = export_run(
        run_dir, tmp_path / "frames.h5", tmp_path / "cost.csv", save_interval_ps=0.5, attrs={"protein": "toy"}
    )
    frames = read_frames(tmp_path / "frames.h5")
    assert summary == {"iterations": 2, "frames": 5 * FRAMES, DROPPED_ATTR: 0, "ended_nonfinite_frames_dropped": 0}
    assert frames.attrs["protein"] == "toy" and frames.attrs[DROPPED_ATTR] == 0
    # Iteration by iteration, segment by segment (segment-id order, not the store's reversed rows).
    assert frames["iteration"].tolist() == [1] * 9 + [2] * 6
    assert frames["seg_id"].tolist() == [s for s in (0, 1, 2, 0, 1) for _ in range(FRAMES)]
    for n, segments in enumerate(iterations, start=1):
        for seg_id, seg in enumerate(segments):
            mine = (frames["iteration"] == n) & (frames["seg_id"] == seg_id)
            assert np.all(frames["weight"][mine] == seg["weight"])
            assert np.allclose(frames["ca"][mine], seg["frames"].astype(np.float32))
            assert frames["frame"][mine].tolist() == [1, 2, 3]
            assert frames["time_ps"][mine].tolist() == [0.5, 1.0, 1.5]
            assert frames["ok"][mine].tolist() == [int(seg["status"] == "ok")] * FRAMES
    assert frames["traj"].tolist() == [t for t in range(5) for _ in range(FRAMES)]  # a piece per segment
    assert "tics" not in frames  # no TICA model given


def test_cost_csv_has_a_row_per_iteration_with_segments_ended_walkers_and_running_sums(run, tmp_path):
    run_dir, _ = run
    export_run(run_dir, tmp_path / "frames.h5", tmp_path / "cost.csv", save_interval_ps=0.5)
    cost = pd.read_csv(tmp_path / "cost.csv")
    assert cost["iteration"].tolist() == [1, 2]
    assert cost["segments"].tolist() == [3, 2] and cost["ended_segments"].tolist() == [0, 1]
    assert cost["segment_wall_seconds"].tolist() == [1.5, 1.0]
    assert cost["segment_cpu_seconds"].tolist() == [0.75, 0.5]
    assert cost["cumulative_segments"].tolist() == [3, 5]
    assert cost["cumulative_cpu_seconds"].tolist() == [0.75, 1.25]
    assert "coverage" not in cost  # no coverage grid given


def test_tics_are_the_models_projection_and_coverage_counts_ok_frames_up_to_each_iteration(run, tmp_path):
    run_dir, _ = run
    projection = np.zeros((6, 2))
    projection[2, 0] = projection[1, 1] = 1.0  # TIC 0, 1: distances of bead 0 to beads 3 and 2
    tica = TicaModel(projection, np.zeros(2), np.ones(2), "toy", FEATURE_CA_DISTANCES, 6, 1, 1.0)
    reference = np.random.default_rng(3).uniform(0, 1.5, (200, 2))
    grid = CoverageGrid(reference, 5)
    export_run(run_dir, tmp_path / "f.h5", tmp_path / "c.csv", save_interval_ps=1.0, tica=tica, coverage_grid=grid)
    frames = read_frames(tmp_path / "f.h5")
    assert frames["tics"].dtype == np.float32
    assert np.allclose(frames["tics"], tica.project(frames["ca"]), atol=1e-6)
    distance = np.linalg.norm(frames["ca"][:, 0] - frames["ca"][:, 3], axis=1)
    assert np.allclose(frames["tics"][:, 0], distance, atol=1e-5)
    cost = pd.read_csv(tmp_path / "c.csv")
    ok = frames["ok"] == 1  # the exploded walker's frames are data but not coverage
    expected = [grid.fraction(frames["tics"][ok & (frames["iteration"] <= n)]) for n in (1, 2)]
    assert cost["coverage"].tolist() == pytest.approx(expected)
    assert 0 < expected[0] <= expected[1] <= 1


def test_an_ended_walkers_bad_frames_always_go_and_its_piece_is_split_at_the_gap(tmp_path):
    rng = np.random.default_rng(5)
    exploded = segment(rng, 0.4, status="exploded", frames=4)
    exploded["frames"][1] = np.nan  # the second of four frames: the piece splits into frame 1 and frames 3, 4
    run_dir = write_run(tmp_path / "run", [[segment(rng, 0.6, frames=4), exploded]])
    summary = export_run(run_dir, tmp_path / "f.h5", tmp_path / "c.csv", save_interval_ps=2.0)
    frames = read_frames(tmp_path / "f.h5")
    assert summary["frames"] == 7 and summary["ended_nonfinite_frames_dropped"] == 1 and summary[DROPPED_ATTR] == 0
    assert frames.attrs["ended_nonfinite_frames_dropped"] == 1 and np.isfinite(frames["ca"]).all()
    assert frames["frame"].tolist() == [1, 2, 3, 4, 1, 3, 4]
    assert frames["time_ps"].tolist() == [2.0, 4.0, 6.0, 8.0, 2.0, 6.0, 8.0]
    assert frames["traj"].tolist() == [0, 0, 0, 0, 1, 2, 2]  # no lagged pair across the gap


def test_an_ok_walkers_bad_frame_is_an_error_naming_it_unless_dropped(tmp_path):
    rng = np.random.default_rng(6)
    broken = segment(rng, 0.5, frames=4)
    broken["frames"][2, 1, 0] = 1e6  # beyond any molecule: refused like NaN
    run_dir = write_run(tmp_path / "run", [[segment(rng, 0.5, frames=4)], [segment(rng, 0.5, frames=4), broken]])
    with pytest.raises(BadFramesError, match=r"iteration 2 segment 1 frame 3 has coordinate 1e\+06 nm at C-alpha 1"):
        export_run(run_dir, tmp_path / "f.h5", tmp_path / "c.csv", save_interval_ps=1.0)
    assert not (tmp_path / "f.h5").exists()
    summary = export_run(run_dir, tmp_path / "f.h5", tmp_path / "c.csv", save_interval_ps=1.0, on_nonfinite="drop")
    frames = read_frames(tmp_path / "f.h5")
    assert summary[DROPPED_ATTR] == 1 == frames.attrs[DROPPED_ATTR] and summary["frames"] == 11
    last = frames["iteration"] == 2
    assert frames["frame"][last].tolist() == [1, 2, 3, 4, 1, 2, 4]
    assert frames["traj"][last].tolist() == [1, 1, 1, 1, 2, 2, 3]


def test_an_iteration_without_stored_frames_for_some_segments_names_the_run_iteration_and_segments(tmp_path):
    rng = np.random.default_rng(7)
    run_dir = write_run(
        tmp_path / "run",
        [[segment(rng, 0.25) for _ in range(4)]],
        order=lambda n: np.array([3, 0]),  # segments 1 and 2 were never stored
    )
    with pytest.raises(RuntimeError, match=r"iteration 1 has no stored frames for segments \[1, 2\]") as error:
        export_run(run_dir, tmp_path / "f.h5", tmp_path / "c.csv", save_interval_ps=1.0)
    assert str(run_dir) in str(error.value)


def test_a_run_without_a_finished_iteration_exports_no_frames(tmp_path):
    run_dir = write_run(tmp_path / "run", [])
    summary = export_run(run_dir, tmp_path / "f.h5", tmp_path / "c.csv", save_interval_ps=1.0)
    assert summary == {"iterations": 0, "frames": 0, DROPPED_ATTR: 0, "ended_nonfinite_frames_dropped": 0}
    frames = read_frames(tmp_path / "f.h5")
    assert all(len(values) == 0 for values in frames.values())
    cost = pd.read_csv(tmp_path / "c.csv")  # the header alone, never an unreadable empty file
    assert cost.empty and {"iteration", "segments", "cumulative_cpu_seconds"} <= set(cost.columns)


@settings(max_examples=25)
@given(
    st.lists(st.integers(1, 5), min_size=1, max_size=4),
    st.integers(0, 2**32 - 1),
)
def test_weights_follow_segment_ids_under_any_store_row_order(segments_per_iteration, seed):
    """Property: whatever the store's row order, each exported frame has its own segment's weight and frames, and
    every iteration's frames carry the iteration's whole weight (frames per segment times weights summing to 1)."""
    rng = np.random.default_rng(seed)
    iterations = [[segment(rng, w) for w in rng.dirichlet(np.ones(count))] for count in segments_per_iteration]
    with tempfile.TemporaryDirectory() as folder:
        run_dir = write_run(Path(folder) / "run", iterations, order=lambda n: rng.permutation(n))
        export_run(run_dir, Path(folder) / "f.h5", Path(folder) / "c.csv", save_interval_ps=1.0)
        frames = read_frames(Path(folder) / "f.h5")
    for n, segments in enumerate(iterations, start=1):
        rows = frames["iteration"] == n
        assert frames["weight"][rows].sum() == pytest.approx(FRAMES)
        for seg_id, seg in enumerate(segments):
            mine = rows & (frames["seg_id"] == seg_id)
            assert np.all(frames["weight"][mine] == seg["weight"])
            assert np.array_equal(frames["ca"][mine], seg["frames"].astype(np.float32))
