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
