"""Where the model went in the TIC planes: its points coloured by WE iteration over the ground truth.

Scatter plots draw at most ``scatter_max_points`` points, a seeded uniform subsample.
"""

from __future__ import annotations

import matplotlib.ticker
import numpy as np

from westbench.metrics.figures.base import TIC_PAIRS, plt, save, subsample


def tic01_by_iteration(
    groundtruth_tics,
    model_tics,
    iteration,
    path,
    max_points: int = 100_000,
    seed: int = 0,
    label: str = "model",
    runs=None,
) -> None:
    """Model points in TIC 0/1, 1/2 and 2/3 coloured by WE iteration over the ground truth's histogram.

    With a single iteration (the ground truth scored against itself) the points are coloured
    by ``runs`` (one colour per run: its starting point) and a last panel colours TIC 0/1 by TIC 3.
    """
    iteration = np.asarray(iteration)
    by_run = runs is not None and len(np.unique(iteration)) <= 1
    dims = min(groundtruth_tics.shape[1], model_tics.shape[1])
    pairs = [pair for pair in TIC_PAIRS if max(pair) < dims]
    panels = [(pair, "run" if by_run else "iteration") for pair in pairs]
    if by_run and dims > 3:
        panels.append(((0, 1), "tic3"))
    figure, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 4), dpi=110, squeeze=False)
    keep = subsample(len(model_tics), max_points, seed)
    for ((a, b), colour_by), ax in zip(panels, axes[0]):
        ax.hist2d(groundtruth_tics[:, a], groundtruth_tics[:, b], bins=100, cmap="Greys", cmin=1, rasterized=True)
        if colour_by == "iteration":
            values, cmap, name = iteration[keep], "viridis", "WE iteration"
        elif colour_by == "run":
            values, cmap, name = np.asarray(runs)[keep], "tab20", "run (starting point)"
        else:
            values, cmap, name = model_tics[keep, 3], "coolwarm", "TIC 3"
        points = ax.scatter(model_tics[keep, a], model_tics[keep, b], c=values, s=2, cmap=cmap, rasterized=True)
        bar = figure.colorbar(points, ax=ax, label=name)
        if colour_by != "tic3":  # iterations and runs are whole numbers
            bar.locator = matplotlib.ticker.MaxNLocator(integer=True)
            bar.update_ticks()
        ax.set_xlabel(f"TIC {a}")
        ax.set_ylabel(f"TIC {b}")
    what = "by run and by TIC 3" if by_run else "by WE iteration"
    axes[0][0].set_title(
        f"{label}: points {what} (under them: ground-truth histogram, grey scale)", fontsize=9, loc="left"
    )
    save(figure, path)


def draw_tic01_by_iteration(data, path) -> None:
    """The registry's function (westbench.metrics.figure_list): from the job's data."""
    tic01_by_iteration(
        data.groundtruth_tics,
        data.model_tics,
        data.iteration,
        path,
        data.settings.scatter_max_points,
        data.settings.seed,
        data.label,
        runs=data.model.get("traj"),
    )
