"""One coverage grid: the WE stop rule, each iteration of cost.csv and the metric suite's coverage column agree.

A short WE run of a bead chain with a TICA progress coordinate (two pairwise distances), exported,
then scored: the three coverages count the same frames on the grid of one setting.
"""

import numpy as np
import pandas as pd
import pytest

from westbench.geometry.coverage_grid import CoverageGrid
from westbench.geometry.features import pairwise_distances
from westbench.io.frames import ok_frames, read_frames, write_frames
from westbench.metrics.suite import MetricSuite
from westbench.tica import FEATURE_CA_DISTANCES, TicaModel
from westbench.we.export import export_run
from westbench.we.launch import run_protein_we

from .toy import Chain

pytestmark = pytest.mark.slow

BINS = 6  # coarse: the short run covers some cells, not all


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("coverage_grid")
    projection = np.zeros((6, 2))
    projection[2, 0] = projection[1, 1] = 1.0  # TIC 0, 1: the distances of bead 0 to beads 3 and 2
    tica = TicaModel(projection, np.zeros(2), np.ones(2), "toy", FEATURE_CA_DISTANCES, 6, 1, 1.0)
    tica.save(folder / "tica")
    engine = Chain()
    runs = engine.propagate([engine.basis_state()] * 20, 400, 20, list(range(20)))  # the "ground truth"
    ca = np.concatenate([run.frames for run in runs])
    write_frames(
        folder / "groundtruth.h5",
        ca=ca,
        weight=np.full(len(ca), 1 / len(ca)),
        traj=np.repeat(np.arange(20), 20),
        time_ps=np.tile(np.arange(1, 21), 20) * 0.02,
        iteration=np.zeros(len(ca), int),
        tics=tica.transform(pairwise_distances(ca)).astype(np.float32),
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
        "max_iterations": 4,
        "coverage_check_every": 2,
        "coverage_target": 0.999,
        "max_wallclock_s": None,
    }
    summary = run_protein_we(
        folder / "run",
        protein="toy",
        engine={"class": "tests.unit.we.toy:Chain", "options": {}},
        tica_model=str(folder / "tica"),
        groundtruth_frames=folder / "groundtruth.h5",
        settings=settings,
        seed=5,
    )
    grid = CoverageGrid(read_frames(folder / "groundtruth.h5")["tics"], BINS)
    export_run(
        folder / "run",
        folder / "frames.h5",
        folder / "cost.csv",
        save_interval_ps=0.01,
        tica=TicaModel.load(folder / "tica.json", protein="toy"),
        coverage_grid=grid,
    )
    return folder, summary, grid


def test_stop_rule_cost_csv_and_coverage_column_count_the_same_frames_on_one_grid(exported):
    folder, summary, grid = exported
    cost = pd.read_csv(folder / "cost.csv")
    frames = read_frames(folder / "frames.h5")
    assert cost["iteration"].tolist() == list(range(1, summary["iterations"] + 1))
    # Each iteration's value: the frames of that iteration and all before, on the grid.
    for n_iter, value in zip(cost["iteration"], cost["coverage"]):
        assert value == grid.fraction(frames["tics"][frames["iteration"] <= n_iter])
    assert 0 < cost["coverage"].iloc[-1] < 1 and cost["coverage"].is_monotonic_increasing
    values, table = MetricSuite(
        read_frames(folder / "groundtruth.h5"), ok_frames(frames), {"coverage_bins": BINS}
    ).score("we")
    column = table.query("distribution == 'tic01' and metric == 'coverage'")["value"].item()
    assert column == values["coverage"] == cost["coverage"].iloc[-1]
    assert summary["coverage"] == cost["coverage"].iloc[-1] and summary["coverage_bins"] == BINS  # the stop rule's
    # run.json says what ran: the serial worker's engine (here the toy chain) and where.
    assert [r["engine"] for r in summary["engines_used"]] == ["tests.unit.we.toy:Chain"]
