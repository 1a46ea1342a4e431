"""One WE job from the workflow's inputs: a user engine (the bead chain of the WE tests) run by WESTPA for two short
iterations through run_we_job, its summary (what ran, the coverage on the grid asked for or the schema's), the
engine records of earlier jobs cleared, and the kinds that run no WE job refused before anything is written."""

import json
import os

import h5py
import numpy as np
import pytest

from westbench.config import section_defaults
from westbench.engines.runtime import RUNTIME_DIR
from westbench.errors import ConfigError
from westbench.geometry.coverage_grid import CoverageGrid
from westbench.geometry.features import pairwise_distances
from westbench.io.frames import read_frames, write_frames
from westbench.tica import FEATURE_CA_DISTANCES, TicaModel
from westbench.we.launch import run_we_job
from westbench.we.live_coverage import run_coverage

from .toy import Chain

USER_ENGINE = {"class": "tests.unit.we.toy:Chain", "work": "openmm", "options": {}}
SETTINGS = {
    "bins_per_tic": 3,
    "walkers_per_bin": 2,
    "initial_walkers": 2,
    "steps_per_segment": 20,
    "save_every": 10,
    "keep_restarts": 2,
    "work_manager": "serial",
    "max_iterations": 2,
    "coverage_check_every": 1,
    "coverage_target": None,
    "max_wallclock_s": None,
    "user_engine": USER_ENGINE,
}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """The rule's inputs: a TICA model (TIC 0, 1: bead 0's distances to beads 3 and 2) and ground-truth frames of
    the chain projected on it."""
    folder = tmp_path_factory.mktemp("inputs")
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
        time_ps=np.tile(np.arange(1, 11), 10) * 0.02,
        traj=np.repeat(np.arange(10), 10),
        tics=tica.transform(pairwise_distances(ca)).astype(np.float32),
    )
    return {"tica": str(folder / "tica.json"), "groundtruth": str(folder / "groundtruth.h5")}


def job(run_dir, inputs, settings=SETTINGS, kind="user", seed=3):
    return run_we_job(
        run_dir,
        kind=kind,
        inputs=inputs,
        protein="toy",
        engine_name="my chain",
        settings=settings,
        job_threads=1,
        seed=seed,
        platform={"name": "CPU"},
    )


def test_a_user_engines_job_runs_we_and_its_summary_names_what_ran(inputs, tmp_path):
    summary = job(tmp_path / "run", inputs, {**SETTINGS, "coverage_bins": 4})
    assert summary["iterations"] == 2 and summary["stopped_because"] == "max_iterations"
    assert summary["engine"] == USER_ENGINE["class"] and summary["engine_name"] == "my chain"
    assert summary["protein"] == "toy" and summary["seed"] == 3 and summary["ended_segments"] == {}
    assert summary["settings"]["user_engine"] == USER_ENGINE and summary["coverage_bins"] == 4
    with h5py.File(tmp_path / "run" / "west.h5", "r") as handle:
        assert int(handle.attrs["west_current_iteration"]) == 3
        first = handle["iterations/iter_00000001"]
        assert len(first["seg_index"]) == SETTINGS["initial_walkers"]
        # The progress coordinate is the TICA model of inputs["tica"] (its stem): bead 0 to bead 3 and bead 2.
        assert first["pcoord"].shape[-1] == 2 and np.all(first["pcoord"][:, 1:, :] > 0)
    # The coverage is the stop rule's, on the grid of the ground truth's TIC 0/1 with the bins asked for.
    grid = CoverageGrid(read_frames(inputs["groundtruth"])["tics"][:, :2], 4)
    assert summary["coverage"] == run_coverage(tmp_path / "run" / "west.h5", grid) > 0
    # Serial: one engine, in this process, recorded by it.
    assert [record["pid"] for record in summary["engines_used"]] == [os.getpid()]
    assert summary["engines_used"][0]["engine"] == USER_ENGINE["class"]


def test_without_coverage_bins_the_schemas_grid_is_used_and_stale_engine_records_are_cleared(inputs, tmp_path):
    stale = tmp_path / "run" / RUNTIME_DIR / "old-host-1.json"
    stale.parent.mkdir(parents=True)
    stale.write_text(json.dumps({"engine": "an earlier job's engine", "time": 0.0}))
    summary = job(tmp_path / "run", inputs)
    bins = section_defaults("metrics")["coverage_bins"]
    assert summary["coverage_bins"] == bins
    grid = CoverageGrid(read_frames(inputs["groundtruth"])["tics"][:, :2], bins)
    assert summary["coverage"] == run_coverage(tmp_path / "run" / "west.h5", grid)
    assert not stale.exists()
    assert [record["engine"] for record in summary["engines_used"]] == [USER_ENGINE["class"]]


def test_the_same_seed_gives_the_same_weights_and_another_seed_other_walkers(inputs, tmp_path):
    def weights_and_pcoords(run_dir):
        with h5py.File(run_dir / "west.h5", "r") as handle:
            group = handle["iterations/iter_00000002"]
            return group["seg_index"]["weight"][()], group["pcoord"][()]

    runs = {name: job(tmp_path / name, inputs, seed=seed) for name, seed in (("a", 5), ("b", 5), ("c", 6))}
    assert all(summary["iterations"] == 2 for summary in runs.values())
    (wa, pa), (wb, pb), (_, pc) = (weights_and_pcoords(tmp_path / name) for name in "abc")
    assert np.array_equal(wa, wb) and np.array_equal(pa, pb)
    assert pa.shape != pc.shape or not np.array_equal(pa, pc)


@pytest.mark.parametrize(
    ("kind", "settings", "message"),
    [
        ("groundtruth", SETTINGS, "engine kind 'groundtruth' runs no WE job"),
        ("user", {k: v for k, v in SETTINGS.items() if k != "user_engine"}, "give the entry"),
    ],
)
def test_a_kind_that_runs_no_we_job_or_a_user_engine_without_its_entry_is_refused_before_any_file(
    inputs, tmp_path, kind, settings, message
):
    with pytest.raises(ConfigError, match=message):
        job(tmp_path / "run", inputs, settings, kind=kind)
    assert not (tmp_path / "run").exists()
