"""One protein across its engines: every engine's TIC 0/1 contours side by side, and coverage against compute
(rule ``protein_figures``)."""

from __future__ import annotations

from typing import Mapping

import numpy as np

from westbench.config import default
from westbench.metrics.figures.base import plt, save
from westbench.metrics.figures.free_energy import LEVELS, draw_contours, draw_surface, grid_edges, surface
from westbench.presentation.figure_layout import fit_titles


def engines_tic01(
    groundtruth_tics, groundtruth_weights, engines: Mapping, path, bins: int = default("metrics.bins"), levels=LEVELS
) -> None:
    """One protein: every engine's TIC 0/1 free-energy contours over the ground truth's, side by side.

    ``engines`` maps an engine name to (tics, weights); one panel each, on shared axes.
    """
    names = list(engines) or ["(no engine)"]
    figure, axes = plt.subplots(
        1, len(names), figsize=(4.2 * len(names), 3.8), dpi=110, squeeze=False, sharex=True, sharey=True
    )
    everything = np.vstack([groundtruth_tics[:, :2], *[np.asarray(t)[:, :2] for t, _ in engines.values()]])
    edges = grid_edges(everything, bins)
    reference = surface(groundtruth_tics, edges, groundtruth_weights)
    for name, ax in zip(names, axes[0]):
        mesh = draw_surface(ax, edges, reference)
        if name in engines:
            tics, weights = engines[name]
            draw_contours(ax, edges, surface(tics, edges, weights), levels)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("TIC 0")
    axes[0][0].set_ylabel("TIC 1")
    figure.colorbar(mesh, ax=axes[0].tolist(), label="ground truth free energy (kT)")
    fit_titles(figure)
    figure.savefig(path, bbox_inches="tight")
    plt.close(figure)


def coverage_vs_compute(costs: Mapping, path, thresholds=(0.2, 0.5, 0.8), gpu: bool = False) -> None:
    """One protein: coverage against cumulative segments and CPU (or GPU) seconds, every engine on one plot.

    ``costs`` maps an engine name to its ``cost.csv`` frame (``coverage`` and cumulative columns).
    """
    seconds = "cumulative_wall_seconds" if gpu else "cumulative_cpu_seconds"
    figure, axes = plt.subplots(1, 2, figsize=(10, 3.8), dpi=110, sharey=True)
    colours = plt.get_cmap("tab10")
    for index, (name, cost) in enumerate(costs.items()):
        if "coverage" not in cost or not len(cost):
            continue
        for ax, column in zip(axes, ("cumulative_segments", seconds)):
            if column in cost and cost[column].notna().any():
                ax.plot(cost[column], cost["coverage"], marker=".", color=colours(index % 10), label=name)
    for ax, label in zip(axes, ("WE segments (cumulative)", f"{'GPU' if gpu else 'CPU'} seconds (cumulative)")):
        for threshold in thresholds:
            ax.axhline(threshold, color="0.5", lw=0.8, ls=":")
            ax.text(
                1.0,
                threshold,
                f" {round(100 * threshold)}%",
                transform=ax.get_yaxis_transform(),
                fontsize=7,
                va="center",
                color="0.4",
            )
        ax.set_xscale("log")
        ax.set_xlabel(label)
    axes[0].set_ylabel("coverage of the ground truth's TIC 0/1 cells")
    axes[0].set_ylim(0, 1.02)
    if costs:
        axes[0].legend(fontsize=8, loc="upper left")
    save(figure, path)


# The registry's functions (westbench.metrics.figure_list): each figure from the protein's data.


def draw_engines_tic01(data, path) -> None:
    engines_tic01(data.groundtruth_tics, data.groundtruth_weights, data.engines, path, data.bins)


def draw_coverage_vs_compute(data, path) -> None:
    coverage_vs_compute(data.costs, path, data.thresholds, data.gpu)
