"""Independent units of a frame set, and every divergence of resampled units from per-unit histograms.

Units (what a bootstrap may resample as independent):

- the ground truth and plain trajectories: runs (``traj``), each from its own start;
- a WE export (frames with ``seg_id``): independent replicas (``replica``) when there are
  several, else blocks of contiguous iterations (each iteration descends from the one before,
  so single iterations are not independent; contiguous blocks keep most of that dependence
  inside a unit).

:class:`BinnedDivergences` holds, per unit, the histogram of each distribution on the suite's
grids, all fixed from the ground truth's range with overflow cells (the KL cells of
:mod:`westbench.metrics.binning`, the fine transport grid of the 1-D W1 with how far its overflow
mass lies, the 2-D W1 grid with each cell's centroid). Histograms add over units, so a resample (a
multiplicity per unit) is a matrix product and thousands of replicates cost about as much as one
pass over the frames.

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
from westbench.metrics.divergences import kl_batch, w1_2d_from_histograms, w1_from_histograms
from westbench.metrics.settings import MetricSettings

TRANSPORT_CELLS = 1024  # cells of the fine grid on which replicates compute 1-D W1
MAX_UNITS = 100  # more independent units are pooled into this many groups


def integrated_time(series: np.ndarray, window: float = 5.0) -> float:
    """Integrated autocorrelation time of a series, in steps (1 for an uncorrelated one): 1 + 2 sum of its
    autocorrelation up to Sokal's automatic window, the first lag M with M >= ``window`` times the time so far
    (Sokal 1997; the estimator of emcee's ``integrated_time``). A constant or too short series gives 1.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> round(integrated_time(rng.normal(size=20_000)), 1)
    1.0
    >>> ar = np.zeros(20_000)
    >>> for t in range(1, len(ar)):  # AR(1) with coefficient 0.8: 1 + 2 * 0.8 / 0.2 = 9
    ...     ar[t] = 0.8 * ar[t - 1] + rng.normal()
    >>> bool(7.5 < integrated_time(ar) < 10.5)
    True
    """
    x = np.asarray(series, dtype=np.float64)
    x = x[np.isfinite(x)]
    n = len(x)
    if n < 4 or np.allclose(x, x[0]):
        return 1.0
    x = x - x.mean()
    size = 1 << (2 * n - 1).bit_length()
    spectrum = np.fft.rfft(x, size)
    acf = np.fft.irfft(spectrum * np.conjugate(spectrum), size)[:n]
    acf = acf / acf[0]
    times = 2.0 * np.cumsum(acf) - 1.0
    lags = np.arange(n)
    beyond = np.flatnonzero(lags >= window * times)
    return float(max(1.0, times[beyond[0]] if len(beyond) else times[-1]))


def iteration_blocks(frames: Mapping, max_blocks: int, decorrelation: float) -> tuple[np.ndarray, int, float]:
    """Blocks of contiguous WE iterations at least ``decorrelation`` integrated autocorrelation times long.

    The time is that of the run's per-iteration weighted means of TIC 0 and TIC 1 (the larger), the
    coordinates WE resamples along: successive iterations descend from each other, so only blocks longer
    than the run's memory are close to independent. Returns the block of every frame, the number of blocks
    (at most ``max_blocks``; fewer when the run is short for its memory) and the time in iterations.
    """
    levels, rank = np.unique(np.asarray(frames["iteration"]), return_inverse=True)
    tau = 1.0
    if "tics" in frames and len(levels) >= 4:
        weights = np.asarray(frames["weight"], dtype=np.float64)
        mass = np.bincount(rank, weights, minlength=len(levels))
        tics = np.asarray(frames["tics"], dtype=np.float64)
        for column in range(min(2, tics.shape[1])):
            with np.errstate(invalid="ignore", divide="ignore"):
                means = np.bincount(rank, weights * tics[:, column], minlength=len(levels)) / mass
            tau = max(tau, integrated_time(means))
    length = max(1, int(np.ceil(decorrelation * tau)))
    n_blocks = max(1, min(int(max_blocks), len(levels) // length))
    block_of_level = (np.arange(len(levels)) * n_blocks) // len(levels)
    return block_of_level[rank], n_blocks, tau


def resampling_units(
    frames: Mapping, blocks: int = 10, max_units: int = MAX_UNITS, decorrelation: float = 0.0
) -> tuple[np.ndarray, str]:
    """The independent unit (0..n-1) of every frame and a description of what a unit is.

    A single WE run is cut into at most ``blocks`` blocks of contiguous iterations, each at least
    ``decorrelation`` integrated autocorrelation times long (:func:`iteration_blocks`; 0: ``blocks`` equal
    blocks whatever the run's memory).
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
            units, n_blocks, tau = iteration_blocks(frames, blocks, decorrelation)
            description = f"{n_blocks} block{'s' if n_blocks > 1 else ''} of contiguous WE iterations"
            if decorrelation > 0:
                description += f" (the run's memory: {tau:.1f} iterations)"
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
    settings : MetricSettings
        Read: ``bins``, ``kl_floor``, ``w1_2d_bins``.
    periods : mapping
        (low, high) of the periodic distributions (dihedrals).
    reference_weights : ndarray, optional
        The ground truth's frame weights (uniform when not given).
    kl : bool
        Whether to bin the KL rows; without, they are NaN here (the nearest-neighbour KL replaces them,
        :class:`westbench.metrics.kl_rows.SuiteKL`) and no KL histogram is made.

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
        settings: MetricSettings,
        periods: Mapping | None = None,
        reference_weights: np.ndarray | None = None,
        kl: bool = True,
    ):
        periods = dict(periods or {})
        self.kl = bool(kl)
        self.names = [name for name in reference if name in sample]
        self.floor = float(settings.kl_floor)
        self.kl_bins = {
            name: ReferenceBins.from_reference(reference[name], settings.bins, period=periods.get(name))
            for name in self.names
        }
        self.transport = {
            name: TransportGrid.from_values(
                reference[name], sample[name], cells=TRANSPORT_CELLS, period=periods.get(name)
            )
            for name in self.names
        }
        self.kl_grid = ReferenceGrid2D.from_reference(reference_tics, settings.bins)
        self.w1_grid = ReferenceGrid2D.from_reference(reference_tics, int(settings.w1_2d_bins))
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

    def histograms(
        self, values: Mapping, tics: np.ndarray, weights: np.ndarray | None, units: np.ndarray, n_units: int
    ) -> dict:
        """Per statistic's grid, (n_units, n_cells) histograms of one frame set (weights: per frame; None = 1).

        Beside them, per unit, what places mass on a transport grid: ``("w1_excess", name)`` (n_units, 2), how far
        the mass of the 1-D overflow cells lies out, and ``("w1_moments", "tic01")`` (n_units, n_cells * 2), the
        weighted coordinate sums of the 2-D cells. All add over frames, so a resample is a matrix product.
        """
        n = len(tics)
        weights = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
        out = {}
        for name in self.names:
            per_frame = np.asarray(values[name]).shape[1]
            flat, w, u = np.ravel(values[name]), np.repeat(weights, per_frame), np.repeat(units, per_frame)
            kl, transport = self.kl_bins[name], self.transport[name]
            if self.kl:
                out[("kl", name)] = unit_histograms(kl.index(flat), w, u, n_units, kl.n_cells)
            out[("w1", name)] = unit_histograms(transport.index(flat), w, u, n_units, transport.n_cells)
            if not transport.periodic:
                excess = transport.excess(flat)
                out[("w1_excess", name)] = np.column_stack(
                    [np.bincount(u, w * excess[:, k], minlength=n_units) for k in range(2)]
                )
        points = np.asarray(tics, dtype=np.float64)[:, :2]
        if self.kl:
            out[("kl", "tic01")] = unit_histograms(
                self.kl_grid.index(points), weights, units, n_units, self.kl_grid.n_cells
            )
        cells, n_cells = self.w1_grid.index(points), self.w1_grid.n_cells
        out[("w1", "tic01")] = unit_histograms(cells, weights, units, n_units, n_cells)
        out[("w1_moments", "tic01")] = np.stack(
            [unit_histograms(cells, weights * points[:, d], units, n_units, n_cells) for d in range(2)], axis=-1
        ).reshape(n_units, n_cells * 2)
        return out

    def divergences(self, p: Mapping, q: Mapping) -> np.ndarray:
        """(n_statistics, batch) from per-statistic (batch, n_cells) histograms of the ground truth and the model."""
        rows = []
        for metric, name in self.keys:
            if (metric, name) == ("w1", "tic01"):
                moments = ("w1_moments", "tic01")
                shape = (-1, self.w1_grid.n_cells, 2)
                rows.append(
                    w1_2d_from_histograms(
                        p[(metric, name)], q[(metric, name)], p[moments].reshape(shape), q[moments].reshape(shape)
                    )
                )
            elif metric == "kl" and not self.kl:
                rows.append(np.full(len(p[("w1", "tic01")]), np.nan))
            elif metric == "kl":
                rows.append(kl_batch(p[(metric, name)], q[(metric, name)], self.floor))
            else:
                grid = self.transport[name]
                rows.append(
                    w1_from_histograms(
                        p[(metric, name)],
                        q[(metric, name)],
                        grid.edges,
                        grid.periodic,
                        p.get(("w1_excess", name)),
                        q.get(("w1_excess", name)),
                    )
                )
        return np.vstack(rows)

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
