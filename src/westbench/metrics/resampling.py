"""Independent units of a frame set, and every divergence of resampled units from per-unit histograms.

Units (what a bootstrap may resample as independent):

- the ground truth and plain trajectories: runs (``traj``), each from its own start;
- a WE export (frames with ``seg_id``): independent replicas (``replica``) when there are
  several, else blocks of contiguous iterations (each iteration descends from the one before,
  so single iterations are not independent; contiguous blocks keep most of that dependence
  inside a unit).

:class:`BinnedDivergences` holds, per unit, the histogram of each distribution on the suite's
fixed grids (the KL cells of :mod:`westbench.metrics.binning`, the fine transport grid of the
1-D W1, the 2-D W1 grid). Histograms add over units, so a resample (a multiplicity per unit) is
a matrix product and thousands of replicates cost about as much as one pass over the frames.

Examples
--------
>>> import numpy as np
>>> frames = {"seg_id": np.zeros(8), "iteration": np.repeat([1, 2, 3, 4], 2), "traj": np.arange(8)}
>>> units, description = resampling_units(frames, blocks=2)
>>> units.tolist(), description
([0, 0, 0, 0, 1, 1, 1, 1], '2 blocks of contiguous WE iterations')
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from westbench.metrics.binning import ReferenceBins, ReferenceGrid2D, TransportGrid
from westbench.metrics.divergences import common_edges, kl_batch, w1_from_histograms
from westbench.without_torch import import_without_torch

TRANSPORT_CELLS = 1024  # cells of the fine grid on which replicates compute 1-D W1
MAX_UNITS = 100  # more independent units are pooled into this many groups


def resampling_units(frames: Mapping, blocks: int = 10, max_units: int = MAX_UNITS) -> tuple[np.ndarray, str]:
    """The independent unit (0..n-1) of every frame and a description of what a unit is.

    More than ``max_units`` units are pooled into ``max_units`` groups of neighbouring units
    (a group of independent units is itself independent of the others): the per-unit
    histograms stay small for imports of thousands of trajectories.

    Examples
    --------
    >>> units, description = resampling_units({"traj": np.arange(1000)}, max_units=100)
    >>> int(units.max()) + 1, description
    (100, '1000 runs, pooled into 100 groups')
    """
    if "seg_id" in frames and "iteration" in frames:
        if "replica" in frames and len(np.unique(frames["replica"])) > 1:
            units = np.unique(np.asarray(frames["replica"]), return_inverse=True)[1]
            description = f"{units.max() + 1} WE replicas"
        else:
            levels, rank = np.unique(np.asarray(frames["iteration"]), return_inverse=True)
            n_blocks = max(1, min(int(blocks), len(levels)))
            block_of_level = (np.arange(len(levels)) * n_blocks) // len(levels)
            units = block_of_level[rank]
            description = f"{n_blocks} block{'s' if n_blocks > 1 else ''} of contiguous WE iterations"
    else:
        units = np.unique(np.asarray(frames["traj"]), return_inverse=True)[1]
        count = int(units.max()) + 1 if len(units) else 0
        description = f"{count} run{'s' if count != 1 else ''}"
    count = int(units.max()) + 1 if len(units) else 0
    if count > max_units:
        units = (units * max_units) // count
        description += f", pooled into {max_units} groups"
    return units, description


def unit_histograms(
    cells: np.ndarray, weights: np.ndarray, units: np.ndarray, n_units: int, n_cells: int
) -> np.ndarray:
    """(n_units, n_cells) weighted counts; ``cells`` and ``weights`` per value, ``units`` per value."""
    flat = np.asarray(units, dtype=np.int64) * n_cells + np.asarray(cells, dtype=np.int64)
    return np.bincount(flat, np.asarray(weights, dtype=np.float64), minlength=n_units * n_cells).reshape(
        n_units, n_cells
    )


class BinnedDivergences:
    """W1 and KL of every distribution for any multiplicities of ground-truth and model units.

    Parameters
    ----------
    reference, sample : mapping
        Per distribution, (n_frames, k) values of the ground truth and of the model.
    reference_tics, sample_tics : ndarray
        (n_frames, 2) TIC 0/1 of each, for the 2-D KL and W1.
    reference_units : ndarray
        The ground truth's unit of every frame (:func:`resampling_units`).
    settings : mapping
        ``bins``, ``kl_floor``, ``w1_2d_bins``.
    periods : mapping
        (low, high) of the periodic distributions (dihedrals).
    reference_weights : ndarray, optional
        The ground truth's frame weights (uniform when not given).

    The statistics, in :attr:`keys` order: ("w1", name) and ("kl", name) per distribution, then
    ("kl", "tic01") and ("w1", "tic01").
    """

    def __init__(
        self,
        reference: Mapping,
        sample: Mapping,
        reference_tics: np.ndarray,
        sample_tics: np.ndarray,
        reference_units: np.ndarray,
        settings: Mapping,
        periods: Mapping | None = None,
        reference_weights: np.ndarray | None = None,
    ):
        periods = dict(periods or {})
        self.names = [name for name in reference if name in sample]
        self.floor = float(settings["kl_floor"])
        self.kl_bins = {
            name: ReferenceBins.from_reference(reference[name], settings["bins"], period=periods.get(name))
            for name in self.names
        }
        self.transport = {
            name: TransportGrid.from_values(
                reference[name], sample[name], cells=TRANSPORT_CELLS, period=periods.get(name)
            )
            for name in self.names
        }
        self.kl_grid = ReferenceGrid2D.from_reference(reference_tics, settings["bins"])
        bins_2d = int(settings["w1_2d_bins"])
        self.w1_edges = tuple(common_edges(reference_tics[:, d], sample_tics[:, d], bins_2d) for d in range(2))
        centres = np.stack(
            np.meshgrid(*(0.5 * (e[1:] + e[:-1]) for e in self.w1_edges), indexing="ij"), axis=-1
        ).reshape(-1, 2)
        self._w1_cells = bins_2d * bins_2d
        self._centres = centres
        self.keys = [(metric, name) for name in self.names for metric in ("w1", "kl")] + [
            ("kl", "tic01"),
            ("w1", "tic01"),
        ]
        self.reference_tics, self.sample_tics = np.asarray(reference_tics), np.asarray(sample_tics)
        self.reference_units = np.asarray(reference_units)
        self.n_reference_units = int(self.reference_units.max()) + 1 if len(self.reference_units) else 0
        self.reference_histograms = self.histograms(
            reference, self.reference_tics, reference_weights, self.reference_units, self.n_reference_units
        )

    def _w1_cell(self, points: np.ndarray) -> np.ndarray:
        index = [
            np.clip(np.searchsorted(e, points[:, d], side="right") - 1, 0, len(e) - 2)
            for d, e in enumerate(self.w1_edges)
        ]
        return index[0] * (len(self.w1_edges[1]) - 1) + index[1]

    def histograms(
        self, values: Mapping, tics: np.ndarray, weights: np.ndarray | None, units: np.ndarray, n_units: int
    ) -> dict:
        """Per statistic's grid, (n_units, n_cells) histograms of one frame set (weights: per frame; None = 1)."""
        n = len(tics)
        weights = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
        out = {}
        for name in self.names:
            per_frame = np.asarray(values[name]).shape[1]
            flat, w, u = np.ravel(values[name]), np.repeat(weights, per_frame), np.repeat(units, per_frame)
            kl, transport = self.kl_bins[name], self.transport[name]
            out[("kl", name)] = unit_histograms(kl.index(flat), w, u, n_units, kl.n_cells)
            out[("w1", name)] = unit_histograms(transport.index(flat), w, u, n_units, transport.n_cells)
        out[("kl", "tic01")] = unit_histograms(
            self.kl_grid.index(tics[:, :2]), weights, units, n_units, self.kl_grid.n_cells
        )
        out[("w1", "tic01")] = unit_histograms(self._w1_cell(tics[:, :2]), weights, units, n_units, self._w1_cells)
        return out

    def divergences(self, p: Mapping, q: Mapping) -> np.ndarray:
        """(n_statistics, batch) from per-statistic (batch, n_cells) histograms of the ground truth and the model."""
        rows = []
        for metric, name in self.keys:
            if (metric, name) == ("w1", "tic01"):
                rows.append(self._w1_2d(p[(metric, name)], q[(metric, name)]))
            elif metric == "kl":
                rows.append(kl_batch(p[(metric, name)], q[(metric, name)], self.floor))
            else:
                grid = self.transport[name]
                rows.append(w1_from_histograms(p[(metric, name)], q[(metric, name)], grid.edges, grid.periodic))
        return np.vstack(rows)

    def _w1_2d(self, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        ot = import_without_torch("ot")

        out = np.full(len(p), np.nan)
        for i, (a, b) in enumerate(zip(p, q)):
            if a.sum() <= 0 or b.sum() <= 0:
                continue
            if np.allclose(a / a.sum(), b / b.sum(), rtol=0, atol=1e-15):
                out[i] = 0.0
                continue
            ia, ib = a > 0, b > 0
            cost = ot.dist(self._centres[ia], self._centres[ib], metric="euclidean")
            out[i] = ot.emd2(a[ia] / a[ia].sum(), b[ib] / b[ib].sum(), cost, numItermax=10_000_000)
        return out

    def statistic(self, model_histograms: Mapping):
        """The bootstrap statistic (:mod:`westbench.metrics.intervals`): [ground-truth, model] multiplicities ->
        (n_statistics, batch)."""

        def compute(multiplicities):
            gt, model = multiplicities
            p = {key: gt @ value for key, value in self.reference_histograms.items()}
            q = {key: model @ value for key, value in model_histograms.items()}
            return self.divergences(p, q)

        return compute

    def split_halves(self, subsets: np.ndarray) -> np.ndarray:
        """(n_statistics, n_splits) divergences of the rest of the ground truth against each subset of its units
        (``subsets``: (n_splits, n_units) indicators): the noise floor's samples."""
        rest = 1.0 - subsets
        p = {key: rest @ value for key, value in self.reference_histograms.items()}
        q = {key: subsets @ value for key, value in self.reference_histograms.items()}
        return self.divergences(p, q)
