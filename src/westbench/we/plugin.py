"""WESTPA plugin: seeds the WE driver, gathers segment files, logs progress, records cost.

Loaded through ``west.plugins`` in west.cfg. Hooks:
- before WE: the driver's random generator (merges) is seeded from (seed, iteration), so
  runs, and runs resumed after a kill, repeat exactly;
- after propagation: the iteration's segment files are joined (:class:`SegmentStore`);
- at the end of an iteration: a log line with walkers, occupied bins, coverage, seconds per
  iteration and ETA. (Compute cost comes from west.h5 itself at export.)
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

    def report(self):
        n_iter = self.sim_manager.n_iter
        segments = list(self.sim_manager.segments.values())
        pcoords = np.array([s.pcoord for s in segments])
        occupied = len(set(self.sim_manager.we_driver.bin_mapper.assign(pcoords[:, -1]).tolist()))
        elapsed = time.perf_counter() - (self.started or time.perf_counter())
        coverage = self.coverage.update(pcoords) if self.coverage else float("nan")
        remaining = max(self.max_iterations - n_iter, 0)
        log.info("iteration %d: %d walkers, %d bins occupied, coverage %.1f %%, %.1f s/iteration, ETA %.0f s",
                 n_iter, len(segments), occupied, 100 * coverage, elapsed, elapsed * remaining)
