"""Coverage of the ground truth's TIC 0/1 plane ("% explored").

A cell of an ``bins`` x ``bins`` grid over the ground truth's TIC 0/1 range counts
when it holds at least one ground-truth point and at least one model point;
coverage = such cells / cells holding ground truth (the published WE benchmark, arXiv:2510.17187).

Examples
--------
>>> grid = CoverageGrid(np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]]), bins=2)
>>> grid.fraction(np.array([[0.1, 0.1], [0.9, 0.9], [5.0, 5.0]]))
0.5
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from westbench.config import default


class CoverageGrid:
    """The grid and the ground-truth cells of one protein."""

    def __init__(self, reference: np.ndarray, bins: int = default("metrics.coverage_bins")):
        reference = np.asarray(reference, dtype=np.float64)[:, :2]
        self.bins = bins
        self.edges = [np.linspace(reference[:, d].min(), reference[:, d].max(), bins + 1) for d in range(2)]
        self.reference_cells = set(self.cells(reference).tolist())

    def cells(self, points: np.ndarray) -> np.ndarray:
        """Flat cell index of every point inside the grid (points outside are dropped)."""
        points = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        index = [
            np.clip(np.searchsorted(self.edges[d], points[:, d], side="right") - 1, 0, self.bins - 1) for d in range(2)
        ]
        inside = np.all(
            [(points[:, d] >= self.edges[d][0]) & (points[:, d] <= self.edges[d][-1]) for d in range(2)], axis=0
        )
        return (index[0] * self.bins + index[1])[inside]

    def covered(self, points: np.ndarray) -> set:
        """Ground-truth cells that hold at least one of ``points``."""
        return self.reference_cells & set(self.cells(points).tolist())

    def fraction(self, points: np.ndarray) -> float:
        return len(self.covered(points)) / len(self.reference_cells)

    def cumulative(self, point_sets: Iterable[np.ndarray]) -> list[float]:
        """Coverage after each of a sequence of point sets (e.g. WE iterations), counting all sets so far.

        The last value equals :meth:`fraction` of all points together.

        Examples
        --------
        >>> grid = CoverageGrid(np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]]), bins=2)
        >>> grid.cumulative([np.array([[0.1, 0.1]]), np.zeros((0, 2)), np.array([[0.9, 0.9], [0.1, 0.2]])])
        [0.25, 0.25, 0.5]
        """
        visited: set = set()
        fractions = []
        for points in point_sets:
            visited |= self.covered(points)
            fractions.append(len(visited) / len(self.reference_cells))
        return fractions
