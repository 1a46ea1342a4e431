"""Running coverage of a WE run, for the per-iteration log line and the coverage stop."""

from __future__ import annotations

from typing import Mapping

import numpy as np

from westbench.frames import read_frames
from westbench.metrics.coverage import CoverageGrid


class CoverageTracker:
    """Accumulates the ground-truth cells visited by the walkers' progress coordinates."""

    def __init__(self, grid: CoverageGrid):
        self.grid = grid
        self.visited: set = set()

    @classmethod
    def from_options(cls, options: Mapping) -> "CoverageTracker":
        reference = read_frames(options["reference"])["tics"][:, :2]
        return cls(CoverageGrid(reference, int(options.get("bins", 100))))

    def update(self, pcoords: np.ndarray) -> float:
        self.visited |= self.grid.covered(np.asarray(pcoords)[..., :2])
        return len(self.visited) / len(self.grid.reference_cells)
