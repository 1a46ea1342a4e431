"""A WESTPA session in this process: WESTPA's runtime made fresh for a run folder, and its failures raised.

WESTPA reads its settings from the environment and the working directory (``WEST_SIM_ROOT``, the
work manager's ``WM_*`` variables) and keeps its runtime in the private ``westpa.core._rc``; this
module is the one place that sets them up and puts them back (:func:`westpa_session`). WESTPA's
``w_run`` logs an exception of its simulation loop and returns; :func:`failures_raised` makes it
end the run with :class:`WERunError`.

WESTPA's loggers, its status prints (the ``westpa.status`` logger, :mod:`westbench.we.run`) and
numexpr's (which WESTPA's HDF5 layer imports) are chatty: their INFO records go to the job's log
file only (:mod:`westbench.runtime.console`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from pathlib import Path

from westbench.errors import WestbenchError
from westbench.runtime.console import declare_chatty
from westbench.runtime.interrupt import children_exit_with_parent
from westbench.we.node import zmq_environment

#: The logger WESTPA's stdout prints become records of (:func:`westbench.runtime.console.quiet_console`).
STATUS_LOGGER = "westpa.status"

declare_chatty("westpa", "west", "work_managers", "westtools", "westext", STATUS_LOGGER, "numexpr")


class WERunError(WestbenchError):
    """A WE run failed: an exception in propagation (engine, progress coordinate, segment store) or no progress."""


@contextlib.contextmanager
def westpa_session(run_dir: Path, work_manager: str, n_workers: int):
    """A fresh WESTPA runtime (westpa.rc) reading run_dir/west.cfg, with the chosen work manager.

    With ``zmq`` this process is a dedicated master and ``n_workers`` are the workers of each node.
    Worker processes forked here die with this process (:func:`westbench.runtime.interrupt.children_exit_with_parent`).
    The environment, the working directory and the SIGINT handler are put back afterwards.
    """
    import westpa
    from westpa.core import _rc

    saved_cwd, saved_env = os.getcwd(), dict(os.environ)
    os.environ.update({"WEST_SIM_ROOT": str(run_dir), "WM_WORK_MANAGER": work_manager, "WM_N_WORKERS": str(n_workers)})
    if work_manager == "zmq":
        os.environ.update(zmq_environment(run_dir, "master", 0))
    os.chdir(run_dir)
    sigint = signal.getsignal(signal.SIGINT)  # w_run puts its work manager's handler in front and leaves it
    try:
        westpa.rc = _rc.WESTRC()
        westpa.rc.read_config(str(run_dir / "west.cfg"))
        westpa.rc.process_config()
        with children_exit_with_parent():  # the processes work manager's workers
            yield westpa.rc
    finally:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, sigint if sigint is not None else signal.SIG_DFL)
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)


@contextlib.contextmanager
def failures_raised(rc, run_dir: Path):
    """Make an exception inside WESTPA's simulation loop end the run with an error.

    ``w_run.run_simulation`` catches every exception of ``sim_manager.run`` (a raising engine,
    progress coordinate or segment store, here or in a worker), logs it with its traceback and
    returns normally. The sim manager's ``run`` and ``finalize_run`` are wrapped here to keep the
    exception, which is raised again once WESTPA has shut its work manager down.

    The run also goes with the SIGINT handler that was in force before ``w_run`` put its work
    manager's in front: that one shuts the workers down inside the handler, before the process's own
    handler (:func:`westbench.runtime.interrupt.stop_on_signals`) sees the signal and starts its
    deadline, so a queue read that never returns (a worker killed halfway through a message) held
    Ctrl-C for good. The work manager still shuts down on the way out (``with work_manager``).
    """
    caught: list[BaseException] = []
    managers: list = []

    def keeping(method):
        def wrapper(*args, **kwargs):
            _hand_sigint_back(getattr(rc, "work_manager", None))
            try:
                return method(*args, **kwargs)
            except BaseException as exc:
                caught.append(exc)
                raise

        return wrapper

    get_sim_manager = rc.get_sim_manager

    def wrapped_sim_manager():
        # Wrapped when w_run asks for it, after it made its work manager (the sim manager keeps the one it finds).
        sim_manager = get_sim_manager()
        if sim_manager not in managers:
            sim_manager.run = keeping(sim_manager.run)
            sim_manager.finalize_run = keeping(sim_manager.finalize_run)
            managers.append(sim_manager)
        return sim_manager

    rc.get_sim_manager = wrapped_sim_manager
    yield
    if not caught:
        return
    exc = caught[0]
    if not isinstance(exc, Exception):
        raise exc  # KeyboardInterrupt, an interrupt (SystemExit): as they came
    n_iter = getattr(managers[0], "n_iter", None) if managers else None
    raise WERunError(
        f"WE run in {run_dir} failed in iteration {n_iter}: {type(exc).__name__}: {exc} (the engine, its progress "
        f"coordinate or the segment store raised; its traceback is in the job log above). Fix the cause and "
        f"rerun: completed iterations are kept and the run resumes from the last one."
    ) from exc


def _hand_sigint_back(work_manager) -> None:
    """Put back the SIGINT handler a WESTPA work manager's ``install_sigint_handler`` replaced (main thread only)."""
    in_front = getattr(work_manager, "sigint_handler", None)
    if threading.current_thread() is threading.main_thread() and in_front is not None:
        if signal.getsignal(signal.SIGINT) == in_front:
            prior = work_manager.prior_sigint_handler
            signal.signal(signal.SIGINT, prior if prior is not None else signal.SIG_DFL)
