"""Interrupt Snakemake mid-job as a user does (Ctrl-C, or SIGTERM to its process group), then rerun.

Every process of the group must be gone within a few seconds, no file lock may outlive them, and
the rerun must resume (completed WE iterations kept, MD continued from its checkpoint) and finish.
Each test works on a copy of the default run with one job's results removed (as in
test_fault_tolerance.py).
"""

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import h5py
import pytest
import yaml

from ..conftest import REPO, start_snakemake

pytestmark = [pytest.mark.workflow, pytest.mark.slow]

STOP_WITHIN_S = 6.0  # a job process stops within 5 s at the latest (westbench.runtime.interrupt), Snakemake just after


def living_members(pgid):
    """Processes of the group ``pgid`` that are not zombies (from /proc: the field after the name)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            try:  # the signal state and where it waits: what a hang report needs
                status = dict(line.split(":\t", 1) for line in (stat.parent / "status").read_text().splitlines())
                keys = ("PPid", "SigBlk", "SigIgn", "SigCgt")
                state = " ".join(f"{key}={status.get(key, '?').strip()}" for key in keys)
                state += f" wchan={(stat.parent / 'wchan').read_text()}"
            except (OSError, ValueError):
                state = ""
            members.append(f"{stat.parent.name}: {text[text.index('(') + 1 : text.rindex(')')]} {state}")
    return members


def interrupt_when(process, ready, sig, timeout=600):
    """Send ``sig`` to Snakemake's process group once ``ready()`` holds; seconds until the group is gone."""
    deadline = time.monotonic() + timeout
    while not ready():
        assert process.poll() is None, process.stdout.read()[-3000:]
        assert time.monotonic() < deadline, "the job made no progress in time"
        time.sleep(0.05)
    os.killpg(process.pid, sig)
    sent = time.monotonic()
    try:
        output, _ = process.communicate(timeout=60)  # Snakemake itself (a deadlock would fail here)
    except subprocess.TimeoutExpired as timeout:  # name what still runs before the group goes
        left = living_members(process.pid)
        os.killpg(process.pid, signal.SIGKILL)
        printed = (timeout.output or b"").decode(errors="replace")
        pytest.fail(f"Snakemake still running 60 s after {sig.name}; its group: {left}\n{printed[-2000:]}")
    while living_members(process.pid) and time.monotonic() - sent < 30:
        time.sleep(0.05)
    left = living_members(process.pid)
    assert not left, f"still running {time.monotonic() - sent:.1f} s after {sig.name}: {left}\n{output[-2000:]}"
    return time.monotonic() - sent, output


def finish(workdir, target, configfile=REPO / "config" / "config.yaml"):
    """The rerun a user types after an interrupt (no --unlock needed: Snakemake released its lock)."""
    process = start_snakemake(workdir, target, "--cores", "2", "--rerun-incomplete", configfile=configfile)
    output, _ = process.communicate(timeout=900)
    assert process.returncode == 0, output[-3000:]


@pytest.fixture
def copy_of_default(default_run, tmp_path):
    workdir = tmp_path / "run"
    shutil.copytree(default_run, workdir, symlinks=True)
    return workdir


def test_ctrl_c_during_weighted_ensemble_with_worker_processes_stops_at_once_and_resumes(copy_of_default, tmp_path):
    """Hung intermittently until the signal was forwarded to the main thread (westbench.runtime.interrupt: the kernel
    can hand Ctrl-C to a thread of the WE master other than the one waiting on its workers' results)."""
    we = copy_of_default / "results" / "chignolin" / "we" / "implicit"
    shutil.rmtree(we)
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["we"].update(
        work_manager="processes", max_iterations_by_engine={"implicit": 3, "explicit": 2}, replicas_by_engine={}
    )  # one implicit run, in we/implicit/
    configfile = tmp_path / "config.yaml"
    configfile.write_text(yaml.safe_dump(config))
    target = "results/chignolin/we/implicit/run.json"

    process = start_snakemake(copy_of_default, target, "--cores", "2", configfile=configfile)
    seconds, output = interrupt_when(
        process, lambda: (we / "segments" / "iter_000002.frames.npz").exists(), signal.SIGINT
    )
    assert seconds < STOP_WITHIN_S, output[-2000:]
    assert process.returncode != 0 and not (we / "run.json").exists()
    with h5py.File(we / "west.h5", "a") as west:  # no process holds its lock
        completed = int(west.attrs["west_current_iteration"]) - 1
    assert completed >= 1

    finish(copy_of_default, target, configfile)
    log = (copy_of_default / "results" / "chignolin" / "logs" / "we_run_implicit.log").read_text()
    resumed = re.search(r"resuming \S*west\.h5: (\d+) complete iterations", log)
    assert resumed and int(resumed.group(1)) == completed  # kept, not redone
    with h5py.File(we / "west.h5", "r") as west:
        assert west.attrs["west_current_iteration"] == 4  # three complete iterations


def test_sigterm_to_the_group_during_ground_truth_md_stops_at_once_and_resumes_from_the_checkpoint(copy_of_default):
    runs = copy_of_default / "results" / "chignolin" / "groundtruth" / "runs"
    start = sorted(p.name for p in runs.iterdir())[0]
    shutil.rmtree(runs / start)
    target = f"results/chignolin/groundtruth/runs/{start}/frames.h5"

    process = start_snakemake(copy_of_default, target, "--cores", "2")
    seconds, output = interrupt_when(
        process, lambda: (runs / start / "checkpoints" / "production.chk").exists(), signal.SIGTERM
    )
    assert seconds < STOP_WITHIN_S, output[-2000:]
    assert process.returncode != 0 and not (runs / start / "frames.h5").exists()
    log = copy_of_default / "results" / "chignolin" / "logs" / f"groundtruth_run_{start}.log"
    assert "interrupted by SIGTERM" in log.read_text()

    finish(copy_of_default, target)
    resumed = re.search(r"resuming production from step (\d+)", log.read_text())
    assert resumed and int(resumed.group(1)) > 0  # not from zero
    assert (runs / start / "frames.h5").exists()
