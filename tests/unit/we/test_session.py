"""A WESTPA session: the runtime made for a run folder and everything it changed put back; an exception inside
WESTPA's simulation loop, which w_run would log and swallow, raised as a WERunError."""

import contextlib
import os
import re
import signal

import pytest

from westbench.we.session import WERunError, failures_raised, westpa_session

WEST_CFG = "west:\n  system:\n    driver: westpa.core.systems.WESTSystem\n"


@pytest.fixture
def run_dir(tmp_path):
    (tmp_path / "west.cfg").write_text(WEST_CFG)
    return tmp_path


@pytest.mark.parametrize("fails", [False, True])
def test_the_session_reads_the_run_folder_and_puts_everything_back(run_dir, fails):
    cwd, environment, sigint = os.getcwd(), dict(os.environ), signal.getsignal(signal.SIGINT)
    with pytest.raises(RuntimeError) if fails else contextlib.nullcontext():
        with westpa_session(run_dir, "serial", 3) as rc:
            assert os.getcwd() == str(run_dir)
            assert (os.environ["WEST_SIM_ROOT"], os.environ["WM_WORK_MANAGER"], os.environ["WM_N_WORKERS"]) == (
                str(run_dir),
                "serial",
                "3",
            )
            assert rc.config["west", "system", "driver"] == "westpa.core.systems.WESTSystem"
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # as w_run leaves its work manager's handler
            if fails:
                raise RuntimeError("inside")
    assert os.getcwd() == cwd and dict(os.environ) == environment and signal.getsignal(signal.SIGINT) == sigint


def test_a_run_folder_without_west_cfg_is_refused_and_puts_back(tmp_path):
    cwd, environment = os.getcwd(), dict(os.environ)
    with pytest.raises(FileNotFoundError, match="west.cfg"):
        with westpa_session(tmp_path, "serial", 1):
            pass
    assert os.getcwd() == cwd and dict(os.environ) == environment


class SimManager:
    """What failures_raised wraps of WESTPA's sim manager: ``run``, ``finalize_run`` and ``n_iter``."""

    def __init__(self, error=None):
        self.n_iter, self.error = 4, error

    def run(self):
        if self.error is not None:
            raise self.error
        return "ran"

    def finalize_run(self):
        return "finalized"


class RC:
    def __init__(self, manager):
        self.manager = manager

    def get_sim_manager(self):
        return self.manager


def test_an_exception_in_the_loop_ends_the_run_with_the_iteration_and_the_cause(tmp_path):
    cause = ValueError("pcoord has NaN")
    rc = RC(SimManager(cause))
    with pytest.raises(
        WERunError, match=re.escape(f"WE run in {tmp_path} failed in iteration 4: ValueError: pcoord has NaN")
    ) as e:
        with failures_raised(rc, tmp_path):
            manager = rc.get_sim_manager()
            assert rc.get_sim_manager() is manager and manager.finalize_run() == "finalized"
            try:
                manager.run()
            except ValueError:
                pass  # w_run logs it and returns normally
    assert e.value.__cause__ is cause


def test_a_clean_run_and_an_interrupt_pass_as_they_came(tmp_path):
    rc = RC(SimManager())
    with failures_raised(rc, tmp_path):
        assert rc.get_sim_manager().run() == "ran"
    interrupted = RC(SimManager(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        with failures_raised(interrupted, tmp_path):
            try:
                interrupted.get_sim_manager().run()
            except KeyboardInterrupt:
                pass


def test_the_run_goes_with_the_process_s_own_sigint_handler_not_westpa_s(tmp_path):
    """w_run puts its work manager's handler in front (it shuts the workers down inside the handler, where a
    blocked queue read held Ctrl-C for good): the run hands SIGINT back to the one that was there before."""
    from westbench.runtime.interrupt import stop_on_signals
    from westbench.we.run import run_we

    cfg = {
        "engine": {"class": "tests.unit.we.toy:SigintRecordingDoubleWell", "options": {"record_dir": str(tmp_path)}},
        "pcoord": {"type": "position", "ndim": 2},
        "seed": 9,
        "bins_per_dim": 7,
        "walkers_per_bin": 3,
        "steps_per_segment": 20,
        "save_every": 10,
    }
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal
    try:
        with stop_on_signals():
            ours = signal.getsignal(signal.SIGINT)
            run_we(tmp_path / "run", cfg=cfg, segs_per_state=2, max_iterations=2, work_manager="serial")
            assert signal.getsignal(signal.SIGINT) is ours
    finally:
        signal.signal(signal.SIGINT, previous)
    assert (tmp_path / "sigint.txt").read_text() == ours.__qualname__ == "stop_on_signals.<locals>.handler"


@pytest.mark.slow
def test_ctrl_c_at_any_moment_of_a_processes_run_ends_every_process_within_the_deadline(tmp_path):
    """Ctrl-C to the group of a run with worker processes, in three iterations: master and workers are gone
    within the stop deadline (whatever WESTPA's shutdown does with its queues), and the run then finishes."""
    import subprocess
    import sys
    import time

    from westbench.runtime.interrupt import KERNEL_GRACE_S, STOP_DEADLINE_S
    from westbench.we.restart import completed_iterations

    from ...conftest import REPO, source_env

    run_dir = tmp_path / "run"
    cfg = {
        "engine": {"class": "tests.unit.we.toy:SlowDoubleWell", "options": {"barrier": 2.0, "dt": 2e-3}},
        "pcoord": {"type": "position", "ndim": 2},
        "seed": 9,
        "bins_per_dim": 7,
        "walkers_per_bin": 3,
        "steps_per_segment": 100,
        "save_every": 10,
    }
    script = (
        "import signal\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"  # as in a terminal
        "from westbench.runtime.interrupt import STOP_DEADLINE_S, stop_on_signals\n"
        "from westbench.we.run import run_we\n"
        "with stop_on_signals(deadline_s=STOP_DEADLINE_S):\n"
        f"    run_we({str(run_dir)!r}, cfg={cfg!r}, segs_per_state=3, max_iterations=5,"
        " work_manager='processes', n_workers=2)\n"
    )

    def start():
        return subprocess.Popen(
            [sys.executable, "-c", script],
            cwd=REPO,
            env=source_env(),
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )

    for iteration in (1, 2, 3):
        process = start()
        deadline = time.monotonic() + 120
        while not any((run_dir / "segments").glob(f"iter_{iteration:06d}/seg_*.npz")):
            assert process.poll() is None, process.stderr.read()[-3000:]
            assert time.monotonic() < deadline, "the run made no progress in time"
            time.sleep(0.01)
        os.killpg(process.pid, signal.SIGINT)
        sent = time.monotonic()
        while time.monotonic() - sent < STOP_DEADLINE_S + KERNEL_GRACE_S + 5:
            try:
                os.killpg(process.pid, 0)
            except ProcessLookupError:
                break
            process.poll()  # reap the master
            time.sleep(0.02)
        else:
            os.killpg(process.pid, signal.SIGKILL)
            pytest.fail(f"processes of the run still alive {time.monotonic() - sent:.1f} s after SIGINT")
        assert process.wait() == 130, process.stderr.read()[-3000:]
    process = start()
    assert process.wait(timeout=300) == 0, process.stderr.read()[-3000:]
    assert completed_iterations(run_dir / "west.h5") == 5
