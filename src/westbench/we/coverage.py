"""Coverage of a WE run: live (the per-iteration log line) and from west.h5 (the stop, the export)."""

from __future__ import annotations

from typing import Mapping

import h5py
import numpy as np

from westbench.config import section_defaults
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
        return cls(CoverageGrid(reference, int(options.get("bins", section_defaults("we")["coverage_bins"]))))

    def update(self, pcoords: np.ndarray) -> float:
        self.visited |= self.grid.covered(np.asarray(pcoords)[..., :2])
        return len(self.visited) / len(self.grid.reference_cells)


def coverage_by_iteration(west_h5, grid: CoverageGrid) -> list[float]:
    """Cumulative coverage after each finished iteration, from every pcoord point in west.h5."""
    visited: set = set()
    fractions = []
    with h5py.File(west_h5, "r") as handle:
        last = int(handle.attrs["west_current_iteration"]) - 1
        for n_iter in range(1, last + 1):
            visited |= grid.covered(handle[f"iterations/iter_{n_iter:08d}/pcoord"][()][..., :2])
            fractions.append(len(visited) / len(grid.reference_cells))
    return fractions
