"""Histogram grids of the metric suite, fixed from the ground truth so that every engine of a protein is
scored on one grid.

- :class:`ReferenceBins`: ``bins`` equal bins over the ground truth's range, padded by ``pad`` of
  the range on each side, plus one overflow bin below and one above. Model mass outside the
  ground truth's support lands in the overflow bins, where the ground truth has none: it can
  only lower the model's mass where the ground truth has some, so KL(ground truth || model)
  penalises it and never rewards it (bins spanning the union of both samples would widen with
  an exploded walker and so flatter it). A periodic distribution (dihedrals) gets the whole
  period and no overflow.
- :class:`TransportGrid`: the fine grid on which bootstrap replicates and noise-floor splits
  compute W1 from per-unit histograms (edges at quantiles of both samples pooled within the
  ground truth's range, so every cell holds a small share of either sample; overflow cells
  keep how far out their mass lies; the point estimate itself is exact).

Examples
--------
>>> import numpy as np
>>> grid = ReferenceBins.from_reference(np.array([0.0, 1.0]), bins=4, pad=0.0)
>>> grid.edges.tolist()
[0.0, 0.25, 0.5, 0.75, 1.0]
>>> grid.index(np.array([-5.0, 0.1, 0.99, 1.0, 50.0])).tolist()  # 0 and 5: the overflow bins
[0, 1, 4, 4, 5]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Padding of the ground truth's range on each side, as a fraction of the range.
PAD = 0.05


@dataclass(frozen=True)
class ReferenceBins:
    """Equal bins between ``edges[0]`` and ``edges[-1]``, with overflow bins unless ``periodic``.

    ``n_cells`` = bins + 2 (underflow, the bins, overflow), or bins when periodic.
    """

    edges: np.ndarray
    periodic: bool = False

    @classmethod
    def from_reference(
        cls, values: np.ndarray, bins: int, pad: float = PAD, period: tuple[float, float] | None = None
    ) -> "ReferenceBins":
        """Bins over the reference's finite range, padded; over ``period`` (low, high) for a periodic variable."""
        if period is not None:
            return cls(np.linspace(period[0], period[1], bins + 1), periodic=True)
        values = np.asarray(values, dtype=np.float64).ravel()
        values = values[np.isfinite(values)]
        low, high = (float(values.min()), float(values.max())) if len(values) else (0.0, 1.0)
        width = high - low
        margin = pad * width if width > 0 else max(abs(low) * 1e-6, 1e-9)
        return cls(np.linspace(low - margin, high + margin, bins + 1))

    @property
    def n_cells(self) -> int:
        return len(self.edges) - 1 + (0 if self.periodic else 2)

    def index(self, values: np.ndarray) -> np.ndarray:
        """The cell of each value: 0 underflow, 1..bins the bins (the last bin closed), bins + 1 overflow."""
        values = np.asarray(values, dtype=np.float64)
        if self.periodic:
            span = self.edges[-1] - self.edges[0]
            wrapped = self.edges[0] + np.mod(values - self.edges[0], span)
            return np.clip(np.searchsorted(self.edges, wrapped, side="right") - 1, 0, len(self.edges) - 2)
        inner = np.searchsorted(self.edges, values, side="right")  # 0 below, len(edges) at or above the top
        return np.where(values == self.edges[-1], len(self.edges) - 1, inner)

    def histogram(self, values: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        """Weighted counts per cell (not normalized)."""
        return np.bincount(
            self.index(np.ravel(values)), None if weights is None else np.ravel(weights), minlength=self.n_cells
        ).astype(np.float64)


@dataclass(frozen=True)
class ReferenceGrid2D:
    """The product of two :class:`ReferenceBins` (TIC 0 x TIC 1): flat cell = i * n_cells(1) + j."""

    axes: tuple[ReferenceBins, ReferenceBins]

    @classmethod
    def from_reference(cls, points: np.ndarray, bins: int, pad: float = PAD) -> "ReferenceGrid2D":
        points = np.asarray(points, dtype=np.float64)
        return cls(tuple(ReferenceBins.from_reference(points[:, d], bins, pad) for d in range(2)))

    @property
    def n_cells(self) -> int:
        return self.axes[0].n_cells * self.axes[1].n_cells

    def index(self, points: np.ndarray) -> np.ndarray:
        points = np.asarray(points, dtype=np.float64)
        return self.axes[0].index(points[:, 0]) * self.axes[1].n_cells + self.axes[1].index(points[:, 1])

    def histogram_with_moments(self, points: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Weighted mass per cell (n_cells,) and weighted coordinate sums per cell (n_cells, 2): each cell's centroid
        is their ratio."""
        points = np.asarray(points, dtype=np.float64)[:, :2]
        cells, weights = self.index(points), np.asarray(weights, dtype=np.float64)
        mass = np.bincount(cells, weights, minlength=self.n_cells)
        moments = np.column_stack(
            [np.bincount(cells, weights * points[:, d], minlength=self.n_cells) for d in range(2)]
        )
        return mass, moments


@dataclass(frozen=True)
class TransportGrid:
    """Cells for W1 from histograms over the ground truth's range, and overflow cells that keep how far out
    their mass lies.

    Edges: ``cells`` quantiles of the ground truth's values and the model's values inside the ground truth's
    range, pooled (their min and max included), so every cell holds a small share of either sample; or equal
    cells over the period of a periodic variable. The grid is fixed by the ground truth's range: a model value
    outside it never moves an edge. Cells (:meth:`index`): 0 below the range, 1..K the in-range cells (a
    value's cell is the last edge at or below it), K + 1 above; :meth:`excess` gives how far each value lies
    outside, whose sums per overflow cell make W1 exact there
    (:func:`westbench.metrics.divergences.w1_from_histograms`). In range, W1 on this grid differs from the
    exact W1 by at most the mass-weighted cell widths.

    Examples
    --------
    >>> grid = TransportGrid.from_values(np.array([0.0, 1.0, 2.0]), np.array([1.0, 50.0]), cells=2)
    >>> grid.edges.tolist(), grid.index(np.array([-1.0, 0.5, 2.0, 50.0])).tolist()
    ([0.0, 1.0, 2.0], [0, 1, 2, 3])
    >>> grid.excess(np.array([-1.0, 0.5, 50.0])).tolist()
    [[1.0, 0.0], [0.0, 0.0], [0.0, 48.0]]
    """

    edges: np.ndarray
    periodic: bool = False

    @classmethod
    def from_values(
        cls, reference: np.ndarray, *others: np.ndarray, cells: int = 1024, period: tuple[float, float] | None = None
    ) -> "TransportGrid":
        if period is not None:
            return cls(np.linspace(period[0], period[1], cells + 1), periodic=True)
        reference = np.asarray(reference, dtype=np.float64).ravel()
        reference = reference[np.isfinite(reference)]
        if not len(reference):
            return cls(np.array([0.0, 1.0]))
        low, high = float(reference.min()), float(reference.max())
        inside = [np.asarray(o, dtype=np.float64).ravel() for o in others]
        pooled = np.concatenate([reference, *[o[(o >= low) & (o <= high)] for o in inside]])
        edges = np.unique(np.quantile(pooled, np.linspace(0.0, 1.0, cells + 1)))
        if len(edges) == 1:
            edges = np.array([edges[0], edges[0] + 1e-9])
        return cls(edges)

    @property
    def n_cells(self) -> int:
        return len(self.edges) - 1 + (0 if self.periodic else 2)

    def index(self, values: np.ndarray) -> np.ndarray:
        """The cell of each value (wrapped into the period when periodic)."""
        values = np.asarray(values, dtype=np.float64)
        if self.periodic:
            span = self.edges[-1] - self.edges[0]
            values = self.edges[0] + np.mod(values - self.edges[0], span)
            return np.clip(np.searchsorted(self.edges, values, side="right") - 1, 0, len(self.edges) - 2)
        inner = np.clip(np.searchsorted(self.edges, values, side="right"), 1, len(self.edges) - 1)
        return np.where(values < self.edges[0], 0, np.where(values > self.edges[-1], len(self.edges), inner))

    def excess(self, values: np.ndarray) -> np.ndarray:
        """(n, 2): how far each value lies below the range and above it (0 inside; none when periodic)."""
        values = np.asarray(values, dtype=np.float64)
        return np.column_stack([np.maximum(self.edges[0] - values, 0.0), np.maximum(values - self.edges[-1], 0.0)])
