"""WE with the batched OpenMM engine (implicit chignolin as copies in one context, CPU platform):
repeatable, resumable after a kill, independent of the worker count; workers get their own device."""

import os
import signal
import subprocess
import sys
import time

import pytest

from westbench.we.restart import completed_iterations
from westbench.we.run import run_we

from ..engines.systems import prepare_chignolin
from .test_we_toy import assert_same_run, pcoords_and_weights

pytestmark = pytest.mark.slow

BATCH = 4


def run_we_in_a_fresh_interpreter(run_dir, cfg, env=None, **kwargs):
    """run_we with a forking work manager, started from a clean interpreter as the rules start it: a fork of
    the pytest process would copy the threads and locks of every library earlier tests used (torch, OpenMM)."""
    from ...conftest import REPO, source_env

    script = f"from westbench.we.run import run_we\nrun_we({str(run_dir)!r}, cfg={cfg!r}, **{kwargs!r})\n"
    env = {**{k: v for k, v in source_env().items() if k != "CUDA_VISIBLE_DEVICES"}, **(env or {})}
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]


@pytest.fixture(scope="module")
def cfg(tmp_path_factory):
    files = prepare_chignolin(tmp_path_factory.mktemp("chignolin"))
    engine = {
        "class": "westbench.engines.openmm_engine:OpenMMEngine",
        "options": {
            "system_xml": files[0],
            "state_xml": files[1],
            "topology_pdb": files[2],
            "threads": 1,
            "platform": {"name": "CPU", "deterministic": True},
            "batch_walkers": BATCH,
        },
    }
    return {
        "engine": engine,
        "block_size": BATCH,
        "pcoord": {"type": "position", "ndim": 2},
        "seed": 3,
        "bins_per_dim": 3,
        "walkers_per_bin": 2,
        "steps_per_segment": 10,
        "save_every": 5,
    }


@pytest.fixture(scope="module")
def reference(cfg, tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("batched")
    run_we(run_dir, cfg=cfg, segs_per_state=3, max_iterations=3)
    return pcoords_and_weights(run_dir / "west.h5")


def test_batched_run_repeats_and_uses_copies(cfg, reference, tmp_path, caplog):
    caplog.set_level("INFO")
    run_we(tmp_path / "again", cfg=cfg, segs_per_state=3, max_iterations=3)
    assert "copy context ready: 4 copies" in caplog.text
    assert len(reference) == 3 and len(reference[-1][0]) > BATCH  # later iterations hold several batches
    assert_same_run(pcoords_and_weights(tmp_path / "again" / "west.h5"), reference)


def test_two_workers_give_the_serial_run(cfg, reference, tmp_path):
    """Batches are fixed by segment id, so which worker runs a batch does not matter."""
    run_we_in_a_fresh_interpreter(
        tmp_path / "two", cfg, segs_per_state=3, max_iterations=3, work_manager="processes", n_workers=2
    )
    assert_same_run(pcoords_and_weights(tmp_path / "two" / "west.h5"), reference)


def test_killed_batched_run_resumes_to_the_uninterrupted_run(cfg, reference, tmp_path):
    from ...conftest import REPO, source_env

    run_dir = tmp_path / "killed"
    script = "from westbench.we.run import run_we\nrun_we(%r, cfg=%r, segs_per_state=3, max_iterations=3)\n" % (
        str(run_dir),
        cfg,
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
    deadline = time.monotonic() + 300
    # The first batch of iteration 3 is on disk: iterations 1-2 are done and the third is under way.
    while not any((run_dir / "segments").glob("iter_000003/seg_*.npz")):
        assert process.poll() is None, process.stderr.read()[-3000:]
        assert time.monotonic() < deadline
        time.sleep(0.01)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert 2 <= completed_iterations(run_dir / "west.h5") < 3
    assert run_we(run_dir, cfg=cfg, segs_per_state=3, max_iterations=3)["iterations"] == 3
    assert_same_run(pcoords_and_weights(run_dir / "west.h5"), reference)


def test_each_worker_gets_its_own_device(tmp_path):
    """One worker per GPU: WESTPA numbers its workers and each one picks device index mod the GPUs present
    (CPU workers standing in for two GPUs that CUDA_VISIBLE_DEVICES describes); each worker records what it ran on."""
    from westbench.engines.runtime import collect_runtime

    from .test_we_toy import CFG

    records = tmp_path / "devices"
    records.mkdir()
    engine = {
        "class": "tests.unit.we.toy:DeviceDoubleWell",
        "options": {"record_dir": str(records), "barrier": 2.0, "dt": 2e-3},
    }
    run_we_in_a_fresh_interpreter(
        tmp_path / "run",
        {**CFG, "engine": engine},
        env={"CUDA_VISIBLE_DEVICES": "0,1"},
        max_iterations=4,
        work_manager="processes",
        n_workers=2,
    )
    devices = sorted(int(p.read_text()) for p in records.glob("*.txt"))
    assert devices == [0, 1]
    runtime = collect_runtime(tmp_path / "run")
    assert sorted(r["worker"] for r in runtime) == ["0", "1"]
    assert {r["engine"] for r in runtime} == {"tests.unit.we.toy:DeviceDoubleWell"}
