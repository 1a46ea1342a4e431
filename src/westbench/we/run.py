"""Run WESTPA in-process: ``w_init`` once, then ``w_run`` until a stop condition holds.

The run directory holds west.cfg, west.h5 and the segment files; rerunning after
a kill resumes: WESTPA redoes the incomplete iteration (segments already
propagated keep their results, the others are propagated again with the same
seeds), and the segment files of any later iteration are discarded first. A run
whose settings or input files changed starts over instead (:mod:`westbench.resume`: the content of the
files counts, not where they are, so a moved run folder resumes). An interrupt (Ctrl-C,
SIGTERM) ends the run within seconds with ``west.h5`` closed and no worker process left
(:mod:`westbench.interrupt`); the rerun resumes the same way.

Stop conditions: ``max_iterations``, ``max_wallclock_s`` (WESTPA's own, so an
iteration never starts that would overrun), and ``coverage_target`` (fraction of
ground-truth TIC 0/1 cells visited), checked every ``check_every`` iterations.

Failures: an exception anywhere in propagation (the engine, the progress coordinate, the segment
store; in this process or a worker) ends the run with :class:`WERunError`, the exception's message
and traceback in the log, so the job fails (WESTPA's ``w_run`` alone logs it and returns); so does a
round of ``w_run`` that finishes no iteration without a wallclock stop. A walker the engine ends
(status ``exploded``) is data: the run goes on.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Mapping

import h5py
import numpy as np

from westbench.errors import WestbenchError
from westbench.interrupt import children_exit_with_parent
from westbench.resume import reset_if_settings_changed
from westbench.seeds import derive_seed
from westbench.we.determinism import make_segment_order_deterministic
from westbench.westh5 import finished_iterations
from westbench.we.node import zmq_environment
from westbench.we.store import SegmentStore
from westbench.we.westcfg import write_west_cfg

log = logging.getLogger(__name__)

#: Loggers whose INFO records go to the job's log file only (the console gets their warnings and errors).
CHATTY = ("westpa", "west", "work_managers", "westtools", "westext", "westbench.engines", "westbench.cg.engine",
          "westbench.we.propagator", "westbench.we.store", "westpa.status", "numexpr")


class _ConsoleFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        name = record.name
        return record.levelno >= logging.WARNING or not any(name == p or name.startswith(p + ".") for p in CHATTY)


class _LogStream(io.TextIOBase):
    """A text stream whose lines become INFO records (WESTPA prints its status to stdout)."""

    def __init__(self, logger: logging.Logger):
        self.logger, self.pending = logger, ""

    def write(self, text: str) -> int:
        lines = (self.pending + text).split("\n")
        self.pending = lines.pop()
        for line in lines:
            if line.strip():
                self.logger.info("%s", line.rstrip())
        return len(text)

    def isatty(self) -> bool:
        return False


@contextlib.contextmanager
def quiet_console():
    """WESTPA's chatter (its status prints and INFO records, engine set-up lines) to the log file only.

    Console handlers (root handlers writing to stderr or stdout) get a filter that passes warnings,
    errors and westbench's own lines (one per iteration from :mod:`westbench.we.plugin`); WESTPA's
    stdout prints become records of the ``westpa.status`` logger, which file handlers keep.
    """
    terminals = (sys.stderr, sys.stdout, sys.__stderr__, sys.__stdout__)
    console = [h for h in logging.getLogger().handlers
               if isinstance(h, logging.StreamHandler) and getattr(h, "stream", None) in terminals]
    chatter = _ConsoleFilter()
    for handler in console:
        handler.addFilter(chatter)
    try:
        with contextlib.redirect_stdout(_LogStream(logging.getLogger("westpa.status"))):
            yield
    finally:
        for handler in console:
            handler.removeFilter(chatter)


@contextlib.contextmanager
def _westpa_session(run_dir: Path, work_manager: str, n_workers: int):
    """A fresh WESTPA runtime (westpa.rc) reading run_dir/west.cfg, with the chosen work manager.

    With ``zmq`` this process is a dedicated master and ``n_workers`` are the workers of each node.
    Worker processes forked here die with this process (:func:`westbench.interrupt.children_exit_with_parent`).
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


def node_command(run_dir: Path, n_workers: int) -> list[str]:
    """The command that starts the ZeroMQ nodes: one per allocated node under SLURM, else one here.

    Inside a SLURM allocation (``SLURM_JOB_ID``) it is ``srun`` with one task per node of the
    allocation (``SLURM_JOB_NUM_NODES``, from the rule's ``nodes`` resource), each running
    :mod:`westbench.we.node` with ``n_workers`` workers.
    """
    node = [sys.executable, "-m", "westbench.we.node", str(run_dir), "--workers", str(n_workers)]
    if os.environ.get("SLURM_JOB_ID") and shutil.which("srun"):
        nodes = os.environ.get("SLURM_JOB_NUM_NODES", "1")
        return ["srun", f"--nodes={nodes}", f"--ntasks={nodes}", "--ntasks-per-node=1", "--overlap", *node]
    return node


@contextlib.contextmanager
def _zmq_nodes(run_dir: Path, n_workers: int, startup_timeout_s: float = 120.0):
    """Start the node processes once the master has written its endpoints; stop them after the round."""
    host_info = run_dir / "zmq_host_info.json"
    host_info.unlink(missing_ok=True)
    processes: list[subprocess.Popen] = []
    stop = threading.Event()
    source = str(Path(__file__).resolve().parents[2])  # the nodes import westbench (and the engine) from here
    env = {k: v for k, v in os.environ.items() if not k.startswith("WM_")}  # the master's settings are not the nodes'
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [source, os.environ.get("PYTHONPATH")]))

    def launch():
        deadline = time.monotonic() + startup_timeout_s
        while not host_info.exists():
            if stop.is_set() or time.monotonic() > deadline:
                return
            time.sleep(0.05)
        command = node_command(run_dir, n_workers)
        log.info("starting WESTPA nodes: %s", " ".join(command))
        processes.append(subprocess.Popen(command, env=env, cwd=run_dir))

    launcher = threading.Thread(target=launch, daemon=True)
    launcher.start()
    grace = 60.0  # after a finished round the master has told the nodes to stop
    try:
        yield
    except BaseException:
        grace = 3.0  # interrupted or failed: the nodes' workers ignore signals and would wait for the master
        for process in processes:
            process.terminate()
        raise
    finally:
        stop.set()
        launcher.join()
        for process in processes:
            try:
                process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def completed_iterations(west_h5: str | Path) -> int:
    """Iterations WESTPA has finished (0 when the file is missing or w_init did not finish it)."""
    return finished_iterations(west_h5) if is_initialized(west_h5) else 0


def is_initialized(west_h5: str | Path) -> bool:
    path = Path(west_h5)
    if not path.exists():
        return False
    try:
        with h5py.File(path, "r") as handle:
            return "iterations" in handle and len(handle["iterations"]) > 0
    except OSError:
        return False


#: What a WE run folder holds of the run itself (cleared when the run's identity changed); the rest are outputs.
RUN_STATE = ("west.h5", "west.cfg", "segments", "zmq_host_info.json", "inputs.sha256")


class WERunError(WestbenchError):
    """A WE run failed: an exception in propagation (engine, progress coordinate, segment store) or no progress."""


def reset_if_inputs_changed(run_dir: Path, cfg: Mapping) -> list[str]:
    """Start over when the run's settings or input files (e.g. a retrained CG model) changed since it began.

    The restart rule of every run folder (:func:`westbench.resume.reset_if_settings_changed`): the
    settings and the content of every file they name count, not where the files are, so a moved
    run folder resumes. A run whose inputs changed would otherwise silently continue an old run
    (west.h5 is kept across Snakemake reruns on purpose, to resume after a kill).
    """
    return reset_if_settings_changed(run_dir, cfg, what="WE run", clear=RUN_STATE)


@contextlib.contextmanager
def _failures_raised(rc, run_dir: Path):
    """Make an exception inside WESTPA's simulation loop end the run with an error.

    ``w_run.run_simulation`` catches every exception of ``sim_manager.run`` (a raising engine,
    progress coordinate or segment store, here or in a worker), logs it with its traceback and
    returns normally. The sim manager's ``run`` and ``finalize_run`` are wrapped here to keep the
    exception, which is raised again once WESTPA has shut its work manager down.
    """
    caught: list[BaseException] = []
    managers: list = []

    def keeping(method):
        def wrapper(*args, **kwargs):
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
        f"rerun: completed iterations are kept and the run resumes from the last one.") from exc


def run_we(run_dir: str | Path, *, cfg: Mapping, segs_per_state: int = 3, work_manager: str = "serial",
           n_workers: int = 1, max_iterations: int, check_every: int = 10, coverage_target: float | None = None,
           coverage_fn=None, max_wallclock_s: float | None = None) -> dict:
    """Initialize (once) and run a WE simulation in ``run_dir``.

    Parameters
    ----------
    cfg : mapping
        Keyword arguments of :func:`westbench.we.westcfg.west_config` except ``max_iterations``.
    coverage_fn : callable, optional
        ``coverage_fn(west_h5) -> float``; with ``coverage_target``, the run stops once it is reached.

    Returns
    -------
    dict
        Iterations done, why the run stopped, seconds spent.
    """
    with quiet_console():
        return _run_we(run_dir, cfg=cfg, segs_per_state=segs_per_state, work_manager=work_manager,
                       n_workers=n_workers, max_iterations=max_iterations, check_every=check_every,
                       coverage_target=coverage_target, coverage_fn=coverage_fn, max_wallclock_s=max_wallclock_s)


def _run_we(run_dir, *, cfg, segs_per_state, work_manager, n_workers, max_iterations, check_every,
            coverage_target, coverage_fn, max_wallclock_s) -> dict:
    from westpa.cli.core import w_init, w_run

    run_dir = Path(run_dir).resolve()
    run_dir.mkdir(parents=True, exist_ok=True)
    west_h5 = run_dir / "west.h5"
    reset_if_inputs_changed(run_dir, cfg)
    started = time.monotonic()
    if is_initialized(west_h5):
        log.info("resuming %s: %d complete iterations", west_h5, completed_iterations(west_h5))
    else:
        west_h5.unlink(missing_ok=True)  # a kill during w_init leaves a file WESTPA cannot use
        write_west_cfg(run_dir / "west.cfg", max_iterations=max_iterations, **cfg)
        with _westpa_session(run_dir, "serial", 1) as rc:
            # w_init already splits and merges (MAB bins the initial walkers): repeatable like w_run's WE steps.
            make_segment_order_deterministic()
            rc.get_we_driver().rng = np.random.Generator(np.random.MT19937(derive_seed(int(cfg["seed"]), "we", 0)))
            w_init.initialize(tstates=None, tstate_file=None, bstates=["basis,1.0,basis"], bstate_file=None,
                              segs_per_state=segs_per_state)
        log.info("initialized %s with %d walkers", west_h5, segs_per_state)
    reason = "max_iterations"
    while True:
        done = completed_iterations(west_h5)
        SegmentStore(run_dir / "segments").discard_after(done + 1)
        if coverage_target is not None and coverage_fn is not None and done > 0:
            coverage = coverage_fn(west_h5)
            if coverage >= coverage_target:
                reason = f"coverage {coverage:.3f} >= {coverage_target}"
                break
        if done >= max_iterations:
            break
        remaining = None
        if max_wallclock_s:
            remaining = max_wallclock_s - (time.monotonic() - started)
            if remaining <= 0:
                reason = "wallclock"
                break
        target = min(max_iterations, done + check_every) if coverage_target is not None else max_iterations
        write_west_cfg(run_dir / "west.cfg", max_iterations=target, **{**cfg, "max_wallclock_s": remaining})
        nodes = _zmq_nodes(run_dir, n_workers) if work_manager == "zmq" else contextlib.nullcontext()
        with _westpa_session(run_dir, work_manager, n_workers) as rc, nodes:
            with _failures_raised(rc, run_dir):
                w_run.run_simulation()
        if completed_iterations(west_h5) == done:
            if remaining:
                reason = "wallclock"  # WESTPA starts no iteration that would overrun the wallclock
                break
            raise WERunError(f"WE run in {run_dir} made no progress: WESTPA ran and returned with {done} complete "
                             f"iterations of {target} asked, without a wallclock or coverage stop. Read the job "
                             f"log for WESTPA's reason (e.g. no segments to propagate, a plugin error); "
                             f"delete {west_h5} to start the run over.")
    return {"iterations": completed_iterations(west_h5), "stopped_because": reason,
            "seconds": round(time.monotonic() - started, 3)}
