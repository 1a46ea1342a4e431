"""Figures (matplotlib, Agg backend: no display needed); free energy drawn by the metric figures' one helper
(:mod:`westbench.metrics.figures.free_energy`)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from westbench.config import default  # noqa: E402
from westbench.metrics.figures.free_energy import draw_surface, grid_edges, surface  # noqa: E402
from westbench.presentation.figure_layout import fit_titles  # noqa: E402


def tic_density(
    tics: np.ndarray,
    path: str | Path,
    bins: int = default("tica.density_bins"),
    weights: np.ndarray | None = None,
    title: str = "",
    marks: np.ndarray | None = None,
    mark_label: str = "starts",
) -> None:
    """A 2-D histogram of TIC 0 against TIC 1 as free energy (kT), optional marked points."""
    edges = grid_edges(tics, bins)
    figure, axes = plt.subplots(figsize=(5, 4.2), dpi=120)
    mesh = draw_surface(axes, edges, surface(tics, edges, weights), cmap="viridis", vmax=None)
    figure.colorbar(mesh, ax=axes, label="free energy (kT)")
    if marks is not None and len(marks):
        axes.scatter(marks[:, 0], marks[:, 1], s=12, c="red", marker="x", label=mark_label)
        axes.legend(loc="best", fontsize=8)
    axes.set_xlabel("TIC 0")
    axes.set_ylabel("TIC 1")
    axes.set_title(title)
    fit_titles(figure)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
