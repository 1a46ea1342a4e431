"""WESTPA plugin: seeds the WE driver, gathers segment files, logs progress, records cost.

Loaded through ``west.plugins`` in west.cfg. Hooks:
- before WE: the driver's random generator (merges) is seeded from (seed, iteration), so
  runs, and runs resumed after a kill, repeat exactly;
- after propagation: the iteration's segment files are joined (:class:`SegmentStore`);
- at the end of an iteration: one log line (the console's only line per iteration, see
  :func:`westbench.runtime.console.quiet_console`) with walkers, occupied bins, coverage, seconds per
  iteration and segment, and the ETA (:func:`eta_seconds`). (Compute cost comes from west.h5 at export.)
"""

from __future__ import annotations

import logging
import os
import time

import numpy as np

from westbench.config import section_defaults
from westbench.seeds import derive_seed
from westbench.we.determinism import make_segment_order_deterministic
from westbench.we.store import SegmentStore

log = logging.getLogger("westbench.we")


def projected_walkers(current: int, next_walkers: int, remaining_iterations: int, capacity: int | None) -> list[int]:
    """Walkers of each remaining iteration: the next one's count is known once WE has split and merged;
    after it the count keeps growing by the last ratio (bins fill as walkers spread) up to ``capacity``
    (every bin's target count), and never shrinks.

    Examples
    --------
    >>> projected_walkers(9, 27, 4, 147)
    [27, 81, 147, 147]
    >>> projected_walkers(120, 118, 3, 147)
    [118, 118, 118]
    """
    ratio = max(1.0, next_walkers / max(current, 1))
    cap = capacity if capacity else next_walkers
    walkers, count = [], float(next_walkers)
    for _ in range(max(int(remaining_iterations), 0)):
        walkers.append(int(round(count)))
        count = max(float(next_walkers), min(float(cap), count * ratio))
    return walkers


def eta_seconds(seconds_per_segment: float, walkers: list[int]) -> float:
    """Time left: the segments still to run (:func:`projected_walkers`) times the measured seconds per
    segment (averaged over every iteration of this run so far: total seconds / total segments).

    Examples
    --------
    >>> eta_seconds(0.5, [27, 81, 147])
    127.5
    """
    return float(seconds_per_segment) * sum(walkers)


class WestbenchPlugin:
    def __init__(self, sim_manager, plugin_config):
        make_segment_order_deterministic()
        self.sim_manager = sim_manager
        options = sim_manager.rc.config.require(["west", "westbench"])
        self.seed = int(options["seed"])
        self.store = SegmentStore(os.path.expandvars(options["segments"]))
        self.keep_restarts = int(options.get("keep_restarts", section_defaults("we")["keep_restarts"]))
        self.max_iterations = int(sim_manager.rc.config.get(["west", "propagation", "max_total_iterations"], 0) or 0)
        self.coverage = None
        if options.get("coverage"):
            from westbench.we.live_coverage import CoverageTracker

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
        targets = getattr(self.sim_manager.we_driver, "bin_target_counts", None)
        capacity = int(np.sum(targets)) if targets is not None else None
        walkers = projected_walkers(len(segments), self.next_walkers(len(segments)), remaining, capacity)
        log.info(
            "iteration %d/%d: %d walkers, %d bins occupied, coverage %.1f %%, %.1f s (%.3f s/segment), "
            "ETA %.0f s (%d segments left)",
            n_iter,
            self.max_iterations,
            len(segments),
            occupied,
            100 * coverage,
            elapsed,
            per_segment,
            eta_seconds(per_segment, walkers),
            sum(walkers),
        )
