"""Coverage of a WE run while it runs: live (the per-iteration log line) and from west.h5 (the stop rule).

Both count the points of the walkers' saved frames (a segment's pcoord after its first point,
which is its parent's last frame or the basis state) on the one coverage grid
(``metrics.coverage_bins``), the frames the export's ``cost.csv`` and the metric suite count.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from westbench.config import section_defaults
from westbench.geometry.coverage_grid import CoverageGrid
from westbench.io.frames import read_frames
from westbench.io.westh5 import iterations


class CoverageTracker:
    """Accumulates the ground-truth cells visited by the walkers' progress coordinates."""

    def __init__(self, grid: CoverageGrid):
        self.grid = grid
        self.visited: set = set()

    @classmethod
    def from_options(cls, options: Mapping) -> "CoverageTracker":
        reference = read_frames(options["reference"])["tics"][:, :2]
        return cls(CoverageGrid(reference, int(options.get("bins", section_defaults("metrics")["coverage_bins"]))))

    def update(self, pcoords: np.ndarray) -> float:
        """Coverage so far after one iteration's pcoords (segments, points, ndim): their saved frames' points."""
        self.visited |= self.grid.covered(np.asarray(pcoords)[:, 1:, :2])
        return len(self.visited) / len(self.grid.reference_cells)


def run_coverage(west_h5, grid: CoverageGrid) -> float:
    """Coverage after the finished iterations of a run so far, from the pcoords of the segments' saved frames
    (the stop rule's measure; 0 before the first iteration)."""
    tracker, coverage = CoverageTracker(grid), 0.0
    for iteration in iterations(west_h5):
        coverage = tracker.update(iteration.pcoord)
    return coverage
