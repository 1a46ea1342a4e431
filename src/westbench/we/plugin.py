"""WESTPA plugin: seeds the WE driver, gathers segment files, logs progress, records cost.

Loaded through ``west.plugins`` in west.cfg. Hooks:
- before WE: the driver's random generator (merges) is seeded from (seed, iteration), so
  runs, and runs resumed after a kill, repeat exactly;
- after propagation: the iteration's segment files are joined (:class:`SegmentStore`);
- at the end of an iteration: one log line (the console's only line per iteration, see
  :func:`westbench.we.run.quiet_console`) with walkers, occupied bins, coverage, seconds per
  iteration and segment, and the ETA (:func:`eta_seconds`). (Compute cost comes from west.h5 at export.)
"""

from __future__ import annotations

import logging
import os
import time

import numpy as np

from westbench.seeds import derive_seed
from westbench.we.determinism import make_segment_order_deterministic
from westbench.we.store import SegmentStore

log = logging.getLogger("westbench.we")


def eta_seconds(seconds_per_segment: float, next_walkers: int, remaining_iterations: int) -> float:
    """Time left: segments still to run times the measured seconds per segment.

    The walker count of the next iteration is known once WE has split and merged (it is the sum of
    the occupied bins' target counts); later iterations are assumed to hold as many (MAB bins fill
    early, so the count grows little after the first iterations). The seconds per segment are
    averaged over every iteration of this run so far (total seconds / total segments).

    Examples
    --------
    >>> eta_seconds(0.5, 120, 10)
    600.0
    """
    return float(seconds_per_segment) * int(next_walkers) * max(int(remaining_iterations), 0)


class WestbenchPlugin:
    def __init__(self, sim_manager, plugin_config):
        make_segment_order_deterministic()
        self.sim_manager = sim_manager
        options = sim_manager.rc.config.require(["west", "westbench"])
        self.seed = int(options["seed"])
        self.store = SegmentStore(os.path.expandvars(options["segments"]))
        self.keep_restarts = int(options.get("keep_restarts", 2))
        self.max_iterations = int(sim_manager.rc.config.get(["west", "propagation", "max_total_iterations"], 0) or 0)
        self.coverage = None
        if options.get("coverage"):
            from westbench.we.coverage import CoverageTracker

            self.coverage = CoverageTracker.from_options(options["coverage"])
        self.started = None
        self.seconds, self.segments_done = 0.0, 0
        if sim_manager.rc.work_manager.is_master:
            sim_manager.register_callback(sim_manager.prepare_iteration, self.start_clock, 10)
            sim_manager.register_callback(sim_manager.post_propagation, self.gather_segments, 10)
            sim_manager.register_callback(sim_manager.pre_we, self.seed_driver, 10)
            sim_manager.register_callback(sim_manager.finalize_iteration, self.report, 10)

    def start_clock(self):
        self.started = time.perf_counter()

    def seed_driver(self):
        n_iter = self.sim_manager.n_iter
        self.sim_manager.we_driver.rng = np.random.Generator(np.random.MT19937(derive_seed(self.seed, "we", n_iter)))

    def gather_segments(self):
        self.store.consolidate(self.sim_manager.n_iter)
        self.store.prune_restarts(self.sim_manager.n_iter - self.keep_restarts + 1)

    def next_walkers(self, default: int) -> int:
        binning = getattr(self.sim_manager.we_driver, "next_iter_binning", None)
        return sum(len(b) for b in binning) if binning is not None else default

    def report(self):
        n_iter = self.sim_manager.n_iter
        segments = list(self.sim_manager.segments.values())
        pcoords = np.array([s.pcoord for s in segments])
        occupied = len(set(self.sim_manager.we_driver.bin_mapper.assign(pcoords[:, -1]).tolist()))
        elapsed = time.perf_counter() - (self.started or time.perf_counter())
        self.seconds += elapsed
        self.segments_done += len(segments)
        per_segment = self.seconds / max(self.segments_done, 1)
        coverage = self.coverage.update(pcoords) if self.coverage else float("nan")
        remaining = max(self.max_iterations - n_iter, 0)
        walkers = self.next_walkers(len(segments))
        log.info("iteration %d/%d: %d walkers, %d bins occupied, coverage %.1f %%, %.1f s (%.3f s/segment), "
                 "ETA %.0f s (%d iterations x %d walkers)", n_iter, self.max_iterations, len(segments), occupied,
                 100 * coverage, elapsed, per_segment, eta_seconds(per_segment, walkers, remaining), remaining, walkers)
