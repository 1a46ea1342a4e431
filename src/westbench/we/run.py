"""Run WESTPA in-process: ``w_init`` once, then ``w_run`` until a stop condition holds.

The run directory holds west.cfg, west.h5 and the segment files; rerunning after
a kill resumes: WESTPA redoes the incomplete iteration (segments already
propagated keep their results, the others are propagated again with the same
seeds), and the segment files of any later iteration are discarded first. A run
whose settings or input files changed starts over instead (:mod:`westbench.runtime.resume`: the content of the
files counts, not where they are, so a moved run folder resumes). An interrupt (Ctrl-C,
SIGTERM) ends the run within seconds with ``west.h5`` closed and no worker process left
(:mod:`westbench.runtime.interrupt`); the rerun resumes the same way.

Stop conditions: ``max_iterations``, ``max_wallclock_s`` (WESTPA's own, so an
iteration never starts that would overrun), and ``coverage_target`` (fraction of
ground-truth TIC 0/1 cells visited), checked every ``check_every`` iterations.

Failures: an exception anywhere in propagation (the engine, the progress coordinate, the segment
store; in this process or a worker) ends the run with :class:`WERunError`, the exception's message
and traceback in the log, so the job fails (WESTPA's ``w_run`` alone logs it and returns); so does a
round of ``w_run`` that finishes no iteration without a wallclock stop. A walker the engine ends
(status ``exploded``) is data: the run goes on.

This module is the loop; the WESTPA session is :mod:`westbench.we.session`, the ZeroMQ nodes
:mod:`westbench.we.nodes`, the resume-or-start-over rule :mod:`westbench.we.restart`, and what
reaches the console :mod:`westbench.runtime.console`.
"""

from __future__ import annotations

import contextlib
import logging
import time
from pathlib import Path
from typing import Mapping

import numpy as np

from westbench.runtime.console import quiet_console
from westbench.seeds import derive_seed
from westbench.we.determinism import make_segment_order_deterministic
from westbench.we.nodes import zmq_nodes
from westbench.we.restart import completed_iterations, is_initialized, reset_if_inputs_changed
from westbench.we.session import STATUS_LOGGER, WERunError, failures_raised, westpa_session
from westbench.we.store import SegmentStore
from westbench.we.westcfg import write_west_cfg

__all__ = ["WERunError", "completed_iterations", "run_we"]

log = logging.getLogger(__name__)


def basis_state_entries(count: int, weights=None) -> list[str]:
    """WESTPA's ``label,probability,auxref`` basis states for an engine's ``count`` starts, equally likely or with
    the engine's ``weights`` (a start of probability 0 is left out: no walker of weight 0); ``auxref`` is the
    start's index (:meth:`westbench.we.propagator.WestbenchPropagator.start_of`).

    Examples
    --------
    >>> basis_state_entries(1)
    ['basis,1.0,basis']
    >>> basis_state_entries(4)[:2]
    ['basis_0,0.25,0', 'basis_1,0.25,1']
    >>> basis_state_entries(3, [0.75, 0.0, 0.25])
    ['basis_0,0.75,0', 'basis_2,0.25,2']
    """
    if weights is not None and len(weights) != count:
        raise WERunError(f"the engine gives {len(weights)} basis-state weights for {count} basis states")
    if count == 1:
        return ["basis,1.0,basis"]
    probabilities = [1.0 / count] * count if weights is None else [float(w) for w in weights]
    return [f"basis_{i},{p!r},{i}" for i, p in enumerate(probabilities) if p > 0]


def run_we(
    run_dir: str | Path,
    *,
    cfg: Mapping,
    segs_per_state: int = 3,
    work_manager: str = "serial",
    n_workers: int = 1,
    max_iterations: int,
    check_every: int = 10,
    coverage_target: float | None = None,
    coverage_fn=None,
    max_wallclock_s: float | None = None,
) -> dict:
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
    with quiet_console(STATUS_LOGGER):
        return _run_we(
            run_dir,
            cfg=cfg,
            segs_per_state=segs_per_state,
            work_manager=work_manager,
            n_workers=n_workers,
            max_iterations=max_iterations,
            check_every=check_every,
            coverage_target=coverage_target,
            coverage_fn=coverage_fn,
            max_wallclock_s=max_wallclock_s,
        )


def _run_we(
    run_dir,
    *,
    cfg,
    segs_per_state,
    work_manager,
    n_workers,
    max_iterations,
    check_every,
    coverage_target,
    coverage_fn,
    max_wallclock_s,
) -> dict:
    from westpa.cli.core import w_run

    run_dir = Path(run_dir).resolve()
    run_dir.mkdir(parents=True, exist_ok=True)
    west_h5 = run_dir / "west.h5"
    reset_if_inputs_changed(run_dir, cfg)
    started = time.monotonic()
    if is_initialized(west_h5):
        log.info("resuming %s: %d complete iterations", west_h5, completed_iterations(west_h5))
    else:
        _initialize(run_dir, cfg, max_iterations, segs_per_state)
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
        nodes = zmq_nodes(run_dir, n_workers) if work_manager == "zmq" else contextlib.nullcontext()
        with westpa_session(run_dir, work_manager, n_workers) as rc, nodes:
            with failures_raised(rc, run_dir):
                w_run.run_simulation()
        if completed_iterations(west_h5) == done:
            if remaining:
                reason = "wallclock"  # WESTPA starts no iteration that would overrun the wallclock
                break
            raise WERunError(
                f"WE run in {run_dir} made no progress: WESTPA ran and returned with {done} complete "
                f"iterations of {target} asked, without a wallclock or coverage stop. Read the job "
                f"log for WESTPA's reason (e.g. no segments to propagate, a plugin error); "
                f"delete {west_h5} to start the run over."
            )
    return {
        "iterations": completed_iterations(west_h5),
        "stopped_because": reason,
        "seconds": round(time.monotonic() - started, 3),
    }


def _initialize(run_dir: Path, cfg: Mapping, max_iterations: int, segs_per_state: int) -> None:
    """``w_init`` in ``run_dir``: west.cfg written, the basis states from the engine's starts, repeatable splits."""
    from westpa.cli.core import w_init

    west_h5 = run_dir / "west.h5"
    west_h5.unlink(missing_ok=True)  # a kill during w_init leaves a file WESTPA cannot use
    write_west_cfg(run_dir / "west.cfg", max_iterations=max_iterations, **cfg)
    with westpa_session(run_dir, "serial", 1) as rc:
        # w_init already splits and merges (MAB bins the initial walkers): repeatable like w_run's WE steps.
        make_segment_order_deterministic()
        rc.get_we_driver().rng = np.random.Generator(np.random.MT19937(derive_seed(int(cfg["seed"]), "we", 0)))
        propagator = rc.get_propagator()
        count = len(propagator.starts())
        # An ensemble of basis states starts one walker each: copies add nothing the ensemble lacks, and
        # every initial state the first split/merge leaves unused is formatted by WESTPA's driver on each
        # iteration (768 of them from 256 states x 3 cost 11 % of a calibration WE run).
        per_state = segs_per_state if count == 1 else 1
        w_init.initialize(
            tstates=None,
            tstate_file=None,
            bstates=basis_state_entries(count, propagator.start_weights()),
            bstate_file=None,
            segs_per_state=per_state,
        )
    log.info("initialized %s with %d walkers from %d basis states", west_h5, per_state * count, count)
