"""The grid MSM behind the ``msm`` weighting (:mod:`westbench.metrics.msm`), against the raw (WE) weights.

The MSM's frame weights are the suite's (:attr:`westbench.metrics.figures.data.EngineFigureData.msm_weights`):
the figure draws the estimate the scores used, on the same grid (the ground truth's TIC 0/1 range with
overflow states, :func:`westbench.metrics.msm.msm_grid`, :func:`westbench.metrics.msm.grid_states`).
"""

from __future__ import annotations

import matplotlib.ticker
import numpy as np

from westbench.metrics.figures.base import MODEL_COLOUR, plt, save
from westbench.metrics.figures.free_energy import draw_surface, surface
from westbench.metrics.msm import grid_msm_weights, grid_states, msm_grid, sliding_counts
from westbench.metrics.weighted import normalized

MAX_MATRIX_CELLS = 400  # rows and columns of the transition-matrix panel at most


def msm_reweighting(
    model_tics,
    traj,
    raw_weights,
    path,
    groundtruth_tics,
    bins: int = 80,
    lag: int = 1,
    label: str = "model",
    msm_weights: np.ndarray | None = None,
) -> None:
    """The grid MSM behind the ``msm`` weighting, against the raw (WE) weights.

    Panels: log10 of the row-normalized transition matrix between occupied cells of the ``bins`` x ``bins``
    TIC 0/1 grid over the ground truth's range (``groundtruth_tics``); MSM stationary against raw weight per
    cell (log-log); TIC 0/1 free energy under the raw weights and under the MSM weights. ``msm_weights``: the
    suite's MSM frame weights (:func:`westbench.metrics.msm.grid_msm_weights` at ``bins`` and ``lag``; estimated
    here when not given, raising :class:`~westbench.metrics.estimability.NotEstimable` where the frames give none).
    """
    tics = np.asarray(model_tics, dtype=np.float64)[:, :2]
    grid = msm_grid(groundtruth_tics, bins)
    edges = tuple(axis.edges for axis in grid.axes)
    cells = grid_states(tics, grid)
    symbols, dense = np.unique(cells, return_inverse=True)
    msm = grid_msm_weights(tics, traj, grid, lag) if msm_weights is None else msm_weights
    # The count matrix stays sparse; beyond MAX_MATRIX_CELLS occupied cells, neighbouring cells are grouped
    # into blocks (an 80 x 80 grid has up to 6,400 cells: a dense image would be 41 million pixels).
    block = max(1, -(-len(symbols) // MAX_MATRIX_CELLS))
    counts = sliding_counts(dense // block, np.asarray(traj), lag).count_matrix.toarray()
    rows = counts.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_t = np.log10(np.where(counts > 0, counts / np.where(rows > 0, rows, 1), np.nan))
    raw = normalized(raw_weights)
    raw_cell, msm_cell = np.bincount(dense, raw, len(symbols)), np.bincount(dense, msm, len(symbols))
    figure, axes = plt.subplots(1, 4, figsize=(17, 3.8), dpi=110)
    image = axes[0].imshow(log_t, cmap="magma", interpolation="nearest", origin="upper")
    figure.colorbar(image, ax=axes[0], label="log10 transition probability")
    grouped = f", shown in blocks of {block} neighbouring cells" if block > 1 else ""
    axes[0].set_title(f"grid MSM: {len(symbols)} cells, lag {lag}{grouped}", fontsize=9)
    figure.suptitle(f"{label}: MSM reweighting over TIC 0/1 ({bins} x {bins} grid)", fontsize=10)
    axes[0].set_xlabel("to cell")
    axes[0].set_ylabel("from cell")
    shown = (raw_cell > 0) & (msm_cell > 0)
    axes[1].loglog(raw_cell[shown], msm_cell[shown], ".", ms=3, color=MODEL_COLOUR)
    if shown.any():
        low, high = min(raw_cell[shown].min(), msm_cell[shown].min()), max(raw_cell[shown].max(), msm_cell[shown].max())
        axes[1].plot([low, high], [low, high], color="0.4", lw=0.8, label="equal")
        axes[1].legend(fontsize=8)
    for axis in (axes[1].xaxis, axes[1].yaxis):
        axis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    axes[1].set_xlabel("raw (WE) weight of the cell")
    axes[1].set_ylabel("MSM stationary weight of the cell")
    for ax, weights, title in ((axes[2], raw, "raw (WE) weights"), (axes[3], msm, "MSM weights")):
        mesh = draw_surface(ax, edges, surface(tics, edges, weights), cmap="viridis")
        figure.colorbar(mesh, ax=ax, label="free energy (kT)")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("TIC 0")
        ax.set_ylabel("TIC 1")
    save(figure, path)


def draw_msm_reweighting(data, path) -> None:
    """The registry's function (westbench.metrics.figure_list): the suite's MSM, from the job's data."""
    msm_reweighting(
        data.model_tics,
        data.model["traj"],
        data.raw_weights,
        path,
        data.groundtruth_tics,
        data.settings.msm_bins,
        data.settings.msm_lag,
        data.label,
        msm_weights=data.msm_weights,
    )
