"""Pooling independent WE replicas into one export: weights, the replica field, distinct pieces, summed
cost and the coverage of the union (synthetic frames, and two real toy WE runs through export_replicas)."""

import numpy as np
import pandas as pd
import pytest

from westbench.geometry.coverage_grid import CoverageGrid
from westbench.geometry.features import pairwise_distances
from westbench.io.frames import read_frames, write_frames
from westbench.metrics.resampling import resampling_units
from westbench.tica import FEATURE_CA_DISTANCES, TicaModel
from westbench.we.export import export_run
from westbench.we.launch import run_protein_we
from westbench.we.replicas import export_replicas, pool_cost_rows, pool_frames, replica_weight_factors

from .toy import Chain


def synthetic_replica(iterations, segments, rng, frames_per_segment=3):
    """Frames as export_run writes them: per iteration, segments with random weights summing to one."""
    rows = {"weight": [], "iteration": [], "traj": []}
    piece = 0
    for n in range(1, iterations + 1):
        weights = rng.dirichlet(np.ones(segments))
        for weight in weights:
            rows["weight"] += [weight] * frames_per_segment
            rows["iteration"] += [n] * frames_per_segment
            rows["traj"] += [piece] * frames_per_segment
            piece += 1
    size = len(rows["weight"])
    return {
        "ca": rng.normal(size=(size, 4, 3)).astype(np.float32),
        "weight": np.array(rows["weight"]),
        "traj": np.array(rows["traj"]),
        "time_ps": np.ones(size),
        "iteration": np.array(rows["iteration"]),
        "tics": rng.normal(size=(size, 3)).astype(np.float32),
        "seg_id": np.zeros(size, np.int64),
        "ok": np.ones(size, np.int8),
    }


def test_equal_replicas_each_count_one_nth_and_each_pooled_iteration_sums_to_one():
    rng = np.random.default_rng(3)
    parts = [synthetic_replica(4, segments, rng) for segments in (2, 5, 3)]
    pooled = pool_frames(parts)
    assert pooled["replica"].dtype == np.int64
    assert pooled["replica"].tolist() == sum(([k] * len(part["weight"]) for k, part in enumerate(parts)), [])
    for k, part in enumerate(parts):
        rows = pooled["replica"] == k
        assert np.allclose(pooled["weight"][rows], part["weight"] / 3)  # the exported weights, scaled by 1/n
        assert np.array_equal(pooled["ca"][rows], part["ca"]) and np.array_equal(pooled["tics"][rows], part["tics"])
        assert pooled["weight"][rows].sum() == pytest.approx(4 * 3 / 3)  # 4 iterations, 3 frames per segment, 1/n
    for n in range(1, 5):
        assert pooled["weight"][pooled["iteration"] == n].sum() == pytest.approx(3 * 1.0)  # 3 frames per segment
    # Pieces of continuous trajectory stay distinct across replicas.
    pieces = {k: set(pooled["traj"][pooled["replica"] == k]) for k in range(3)}
    assert not (pieces[0] & pieces[1] or pieces[0] & pieces[2] or pieces[1] & pieces[2])
    assert len(np.unique(pooled["traj"])) == sum(len(np.unique(part["traj"])) for part in parts)


def test_replicas_of_different_lengths_carry_the_same_total_weight():
    rng = np.random.default_rng(4)
    parts = [synthetic_replica(iterations, 3, rng) for iterations in (2, 6, 4)]
    pooled = pool_frames(parts, ids=[0, 2, 5])
    assert sorted(set(pooled["replica"].tolist())) == [0, 2, 5]
    totals = [pooled["weight"][pooled["replica"] == k].sum() for k in (0, 2, 5)]
    assert totals == pytest.approx([totals[0]] * 3)
    assert replica_weight_factors([3, 3, 3]) == pytest.approx([1 / 3] * 3)
    with pytest.raises(ValueError):
        replica_weight_factors([2, 0])


def test_cost_rows_are_summed_over_the_replicas_that_ran_each_iteration():
    def rows(iterations, segments, seconds):
        return [
            {
                "iteration": n,
                "segments": segments * n,
                "ended_segments": n - 1,
                "segment_wall_seconds": seconds * n,
                "segment_cpu_seconds": 2 * seconds * n,
            }
            for n in range(1, iterations + 1)
        ]

    pooled = pool_cost_rows([rows(3, 2, 1.0), rows(2, 5, 0.5)])
    assert [row["iteration"] for row in pooled] == [1, 2, 3]
    assert [row["segments"] for row in pooled] == [7, 14, 6]
    assert [row["ended_segments"] for row in pooled] == [0, 2, 2]
    assert [row["segment_wall_seconds"] for row in pooled] == pytest.approx([1.5, 3.0, 3.0])
    assert [row["segment_cpu_seconds"] for row in pooled] == pytest.approx([3.0, 6.0, 6.0])
    assert [row["replicas"] for row in pooled] == [2, 2, 1]


BINS = 6


@pytest.fixture(scope="module")
def replica_runs(tmp_path_factory):
    """Two real toy WE runs (bead chain) of different seeds and lengths, with a TICA model and a ground truth."""
    folder = tmp_path_factory.mktemp("replicas")
    projection = np.zeros((6, 2))
    projection[2, 0] = projection[1, 1] = 1.0
    tica = TicaModel(projection, np.zeros(2), np.ones(2), "toy", FEATURE_CA_DISTANCES, 6, 1, 1.0)
    tica.save(folder / "tica")
    engine = Chain()
    runs = engine.propagate([engine.basis_state()] * 10, 200, 20, list(range(10)))
    ca = np.concatenate([run.frames for run in runs])
    write_frames(
        folder / "groundtruth.h5",
        ca=ca,
        traj=np.repeat(np.arange(10), 10),
        time_ps=np.tile(np.arange(1, 11), 10) * 0.02,
        tics=tica.transform(pairwise_distances(ca)),
    )
    settings = {
        "bins_per_tic": 3,
        "walkers_per_bin": 2,
        "initial_walkers": 2,
        "steps_per_segment": 50,
        "save_every": 10,
        "keep_restarts": 2,
        "coverage_bins": BINS,
        "work_manager": "serial",
        "coverage_check_every": 2,
        "coverage_target": None,
        "max_wallclock_s": None,
    }
    run_dirs = [folder / "replica_0", folder / "replica_1"]
    for run_dir, seed, iterations in zip(run_dirs, (5, 6), (3, 2)):
        run_protein_we(
            run_dir,
            protein="toy",
            engine={"class": "tests.unit.we.toy:Chain", "options": {}},
            tica_model=str(folder / "tica"),
            groundtruth_frames=folder / "groundtruth.h5",
            settings={**settings, "max_iterations": iterations},
            seed=seed,
        )
    grid = CoverageGrid(read_frames(folder / "groundtruth.h5")["tics"], BINS)
    return folder, run_dirs, TicaModel.load(folder / "tica.json", protein="toy"), grid


@pytest.mark.slow
def test_export_replicas_pools_the_single_exports(replica_runs):
    folder, run_dirs, tica, grid = replica_runs
    singles = []
    for k, run_dir in enumerate(run_dirs):
        export_run(run_dir, folder / f"single_{k}.h5", folder / f"single_{k}.csv", save_interval_ps=0.01, tica=tica)
        singles.append((read_frames(folder / f"single_{k}.h5"), pd.read_csv(folder / f"single_{k}.csv")))
    summary = export_replicas(
        run_dirs,
        folder / "frames.h5",
        folder / "cost.csv",
        save_interval_ps=0.01,
        tica=tica,
        coverage_grid=grid,
        attrs={"protein": "toy"},
    )
    assert summary == {"replicas": 2, "iterations": 3, "frames": sum(len(frames) for frames, _ in singles)}
    pooled = read_frames(folder / "frames.h5")
    assert pooled["replica"].dtype == np.int64 and set(pooled["replica"].tolist()) == {0, 1}
    assert pooled.attrs["protein"] == "toy"
    factors = replica_weight_factors([3, 2])  # every replica carries the same total weight
    for k, (frames, _) in enumerate(singles):
        rows = pooled["replica"] == k
        for name in ("ca", "tics", "iteration", "seg_id", "frame", "ok", "time_ps"):
            assert np.array_equal(pooled[name][rows], frames[name]), name
        assert np.allclose(pooled["weight"][rows], frames["weight"] * factors[k])
    totals = [pooled["weight"][pooled["replica"] == k].sum() for k in (0, 1)]
    assert totals[0] == pytest.approx(totals[1])
    assert len(np.unique(pooled["traj"])) == sum(len(np.unique(frames["traj"])) for frames, _ in singles)
    units, description = resampling_units(pooled)  # the metric suite resamples the two replicas
    assert description == "2 WE replicas" and np.array_equal(units, pooled["replica"])

    cost = pd.read_csv(folder / "cost.csv")
    (_, first), (_, second) = singles
    assert cost["iteration"].tolist() == [1, 2, 3] and cost["replicas"].tolist() == [2, 2, 1]
    for column in ("segments", "ended_segments", "segment_wall_seconds", "segment_cpu_seconds"):
        expected = first[column].to_numpy().astype(float)
        expected[:2] += second[column].to_numpy()
        assert np.allclose(cost[column], expected), column
    assert np.allclose(cost["cumulative_segments"], np.cumsum(cost["segments"]))
    for n, value in zip(cost["iteration"], cost["coverage"]):  # the union of both replicas up to iteration n
        assert value == grid.fraction(pooled["tics"][pooled["iteration"] <= n])
    assert cost["coverage"].is_monotonic_increasing
    assert cost["coverage"].iloc[-1] >= max(grid.fraction(frames["tics"]) for frames, _ in singles)


@pytest.mark.slow
def test_one_replica_is_exported_as_a_single_run(replica_runs):
    folder, run_dirs, tica, grid = replica_runs
    export_run(run_dirs[0], folder / "a.h5", folder / "a.csv", save_interval_ps=0.01, tica=tica, coverage_grid=grid)
    summary = export_replicas(
        run_dirs[:1], folder / "b.h5", folder / "b.csv", save_interval_ps=0.01, tica=tica, coverage_grid=grid
    )
    assert summary["replicas"] == 1 and summary["iterations"] == 3
    a, b = read_frames(folder / "a.h5"), read_frames(folder / "b.h5")
    assert "replica" not in b and set(a) == set(b)
    assert all(np.array_equal(a[name], b[name]) for name in a)
    assert (folder / "a.csv").read_text() == (folder / "b.csv").read_text()
