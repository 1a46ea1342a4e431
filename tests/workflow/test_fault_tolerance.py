"""Kill -9 the whole Snakemake process mid-job, rerun: nothing finished is recomputed, nothing completed is lost.

Each test works on a copy of the default run (outputs, Snakemake metadata, mtimes), removes one job's
results, reruns only that job's target, SIGKILLs Snakemake's process group part-way, then unlocks and
reruns. The resumed results must equal those of the uninterrupted default run bit for bit (one thread,
seeded everything), and the untouched outputs must keep their modification times.
"""

import os
import re
import shutil
import signal
import time

import h5py
import numpy as np
import pytest
import yaml

from ..conftest import REPO, demo_we_run_dirs, start_snakemake

pytestmark = [pytest.mark.workflow, pytest.mark.slow]


def finish(process, timeout=900):
    output, _ = process.communicate(timeout=timeout)
    return process.returncode, output


def kill_when(process, path, timeout=600):
    """SIGKILL Snakemake and its jobs (the whole process group) once ``path`` exists."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert process.poll() is None, process.stdout.read()[-3000:]
        assert time.monotonic() < deadline, f"{path} did not appear in time"
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def completed_after_kill(west_h5, timeout=30):
    """The complete iterations a killed WE run left in ``west_h5``, read once the killed job has let go of its
    HDF5 lock (the group's processes exit just after the signal)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with h5py.File(west_h5, "r") as west:
                return int(west.attrs["west_current_iteration"]) - 1
        except OSError:
            assert time.monotonic() < deadline, f"{west_h5} still locked {timeout} s after the kill"
            time.sleep(0.1)


def mtimes(folder, exclude):
    """Modification times of every file under ``folder`` except the rerun job's own (any of ``exclude``, a string
    or a tuple, in its path)."""
    excludes = (exclude,) if isinstance(exclude, str) else tuple(exclude)
    return {
        p: p.stat().st_mtime_ns
        for p in folder.rglob("*")
        if p.is_file() and not any(part in str(p.relative_to(folder)) for part in excludes)
    }


@pytest.fixture
def copy_of_default(default_run, tmp_path):
    workdir = tmp_path / "run"
    shutil.copytree(default_run, workdir, symlinks=True)
    return workdir


def rerun(workdir, target, **kwargs):
    """What a user does after a kill: unlock, then rerun with --rerun-incomplete."""
    unlock = start_snakemake(workdir, target, "--unlock", **kwargs)
    assert finish(unlock)[0] == 0
    return finish(start_snakemake(workdir, target, "--cores", "2", "--rerun-incomplete", **kwargs))


def test_kill_during_ground_truth_md_resumes_from_the_checkpoint(default_run, copy_of_default):
    runs = copy_of_default / "results" / "chignolin" / "groundtruth" / "runs"
    start = sorted(p.name for p in runs.iterdir())[0]
    shutil.rmtree(runs / start)
    before = mtimes(copy_of_default / "results", exclude=start)
    target = f"results/chignolin/groundtruth/runs/{start}/frames.h5"

    process = start_snakemake(copy_of_default, target, "--cores", "2")
    kill_when(process, runs / start / "checkpoints" / "chunk_000001.npz")
    assert not (runs / start / "frames.h5").exists()

    code, output = rerun(copy_of_default, target)
    assert code == 0, output[-3000:]
    log = (copy_of_default / "results" / "chignolin" / "logs" / f"groundtruth_run_{start}.log").read_text()
    assert "resuming production from step" in log
    assert mtimes(copy_of_default / "results", exclude=start) == before  # nothing finished was recomputed
    with (
        h5py.File(runs / start / "frames.h5") as resumed,
        h5py.File(default_run / "results" / "chignolin" / "groundtruth" / "runs" / start / "frames.h5") as reference,
    ):
        for key in ("ca", "forces", "time_ps"):
            assert np.array_equal(resumed[key][()], reference[key][()]), key


def test_kill_during_weighted_ensemble_keeps_completed_iterations_and_a_second_run_is_locked_out(
    default_run, copy_of_default, tmp_path
):
    we = copy_of_default / "results" / "chignolin" / "we" / "implicit"
    shutil.rmtree(we)
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["we"]["max_iterations_by_engine"] = {"implicit": 4, "explicit": 3}
    config["we"]["replicas_by_engine"] = {}  # one implicit run, in we/implicit/ (its seed is the demo's replica 0's)
    configfile = tmp_path / "config.yaml"
    configfile.write_text(yaml.safe_dump(config))
    before = mtimes(copy_of_default / "results", exclude="implicit")
    target = "results/chignolin/we/implicit/run.json"

    process = start_snakemake(copy_of_default, target, "--cores", "2", configfile=configfile)
    while not (we / "segments" / "iter_000001.frames.npz").exists():
        assert process.poll() is None, process.stdout.read()[-3000:]
        time.sleep(0.05)
    # A second Snakemake on the same results folder is refused while the first runs.
    second = start_snakemake(
        copy_of_default,
        "results/chignolin/metrics/implicit/metrics.json",
        "--cores",
        "1",
        "--forcerun",
        "metric_suite",
        configfile=configfile,
    )
    code, output = finish(second)
    assert code != 0 and "cannot be locked" in output, output[-2000:]
    kill_when(process, we / "segments" / "iter_000003.frames.npz")

    code, output = rerun(copy_of_default, target, configfile=configfile)
    assert code == 0, output[-3000:]
    log = (copy_of_default / "results" / "chignolin" / "logs" / "we_run_implicit.log").read_text()
    assert "resum" in log.lower()
    assert mtimes(copy_of_default / "results", exclude="implicit") == before
    with (
        h5py.File(we / "west.h5") as resumed,
        h5py.File(demo_we_run_dirs(default_run, "implicit")[0] / "west.h5") as reference,
    ):
        assert resumed.attrs["west_current_iteration"] == 5  # four complete iterations
        for n_iter in range(1, min(5, int(reference.attrs["west_current_iteration"]))):  # the ones both ran
            group = f"iterations/iter_{n_iter:08d}"
            assert np.array_equal(resumed[group]["pcoord"][()], reference[group]["pcoord"][()]), n_iter
            assert np.array_equal(resumed[group]["seg_index"]["weight"], reference[group]["seg_index"]["weight"])


def test_an_engine_that_raises_fails_the_we_run_job_with_its_message(default_run, copy_of_default, tmp_path):
    """The real we_run rule with an OpenMM engine whose platform cannot be had (HIP, no fallback): the context
    is made on the first segment, inside WESTPA's loop; the job must fail with OpenMM's message in its log."""
    # explicit: the demo's one single-run engine (implicit runs as replicas, rule we_run_replica)
    we = copy_of_default / "results" / "chignolin" / "we" / "explicit"
    shutil.rmtree(we)
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["platform"] = {**config.get("platform", {}), "name": "HIP", "fallback": []}
    configfile = tmp_path / "config.yaml"
    configfile.write_text(yaml.safe_dump(config))
    job = ("we/explicit", "we_run_explicit")
    before = mtimes(copy_of_default / "results", exclude=job)
    # mtime only: the platform change must not rerun the finished preparation and ground truth.
    code, output = finish(
        start_snakemake(
            copy_of_default,
            "results/chignolin/we/explicit/run.json",
            "--cores",
            "2",
            "--rerun-triggers",
            "mtime",
            configfile=configfile,
        )
    )
    assert code != 0, output[-3000:]
    log = (copy_of_default / "results" / "chignolin" / "logs" / "we_run_explicit.log").read_text()
    assert "OpenMM platform HIP (platform.name) cannot be used" in log and "Traceback" in log  # message, traceback
    assert re.search(r"WE run in \S+ failed in iteration 1: PlatformError", log), log[-3000:]
    assert not (we / "run.json").exists()
    assert mtimes(copy_of_default / "results", exclude=job) == before


def test_killed_runs_moved_to_another_path_resume_where_they_stopped(default_run, copy_of_default, tmp_path):
    """Kill a WE run and a ground-truth run, move the whole results folder, rerun: both resume."""
    protein = copy_of_default / "results" / "chignolin"
    we, runs = protein / "we" / "implicit", protein / "groundtruth" / "runs"
    start = sorted(p.name for p in runs.iterdir())[0]
    shutil.rmtree(we)
    shutil.rmtree(runs / start)
    # The demo's cap of three iterations (one run, replica 0's seed): killed once the second is propagated, at
    # least one is complete and the third is still to run.
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["we"]["max_iterations_by_engine"] = {"implicit": 3, "explicit": 2}
    configfile = tmp_path / "config.yaml"
    configfile.write_text(yaml.safe_dump(config))

    target = f"results/chignolin/groundtruth/runs/{start}/frames.h5"
    kill_when(
        start_snakemake(copy_of_default, target, "--cores", "1", configfile=configfile),
        runs / start / "checkpoints" / "chunk_000001.npz",
    )
    assert finish(start_snakemake(copy_of_default, target, "--unlock", configfile=configfile))[0] == 0
    kill_when(
        start_snakemake(
            copy_of_default, "results/chignolin/we/implicit/run.json", "--cores", "1", configfile=configfile
        ),
        we / "segments" / "iter_000002.frames.npz",
    )
    completed = completed_after_kill(we / "west.h5")
    assert completed >= 1

    moved = tmp_path / "elsewhere" / "run"
    shutil.move(copy_of_default, moved)
    for target in (target, "results/chignolin/we/implicit/run.json"):
        code, output = rerun(moved, target, configfile=configfile)
        assert code == 0, output[-3000:]
    logs = moved / "results" / "chignolin" / "logs"
    gt_log = (logs / f"groundtruth_run_{start}.log").read_text()
    assert "resuming production from step" in gt_log and "starting over" not in gt_log, gt_log[-3000:]
    we_log = (logs / "we_run_implicit.log").read_text()
    resumed = re.search(r"resuming \S*west\.h5: (\d+) complete iterations", we_log)
    assert resumed and int(resumed.group(1)) == completed and "starting over" not in we_log, we_log[-3000:]
    with h5py.File(moved / "results" / "chignolin" / "we" / "implicit" / "west.h5", "r") as west:
        assert west.attrs["west_current_iteration"] == 4  # three complete iterations
