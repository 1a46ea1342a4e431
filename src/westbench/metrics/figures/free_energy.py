"""Free-energy surfaces, made and drawn one way for every figure that shows one.

A surface is -ln p of a weighted 2-D histogram, shifted to a minimum of zero (kT), empty bins NaN
(:func:`surface`); it is drawn as a colour mesh (:func:`draw_surface`) and another set's surface over it as
labelled contour lines (:func:`draw_contours`). Used by the metric figures (:mod:`westbench.metrics.figures`)
and the TICA stage's ground-truth figure (:func:`westbench.report.plots.tic_density`). No pyplot here: the
functions draw on the axes they are given.

Examples
--------
>>> import numpy as np
>>> points = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 1.0]])
>>> energy = surface(points, grid_edges(points, 2))
>>> np.round(energy, 3).tolist()
[[0.0, nan], [nan, 0.693]]
"""

from __future__ import annotations

import numpy as np

from westbench.metrics.weighted import histogram2d

#: Contour levels of a model's surface over the ground truth's (kT).
LEVELS = (1, 2, 3, 4, 5)
#: The colour scale's top (kT): higher free energies share the last colour.
VMAX = 8


def free_energy(probability: np.ndarray) -> np.ndarray:
    """-ln p shifted to a minimum of zero (kT); empty bins are NaN."""
    with np.errstate(divide="ignore"):
        energy = -np.log(np.where(probability > 0, probability, np.nan))
    return energy - np.nanmin(energy) if np.isfinite(energy).any() else energy


def grid_edges(points: np.ndarray, bins: int) -> tuple[np.ndarray, np.ndarray]:
    """``bins`` + 1 evenly spaced edges over the range of each of the first two columns of ``points`` (in the
    points' precision, as ``np.histogram2d`` makes them)."""
    points = np.asarray(points)
    return tuple(np.linspace(points[:, d].min(), points[:, d].max(), bins + 1) for d in range(2))


def surface(points: np.ndarray, edges: tuple[np.ndarray, np.ndarray], weights=None) -> np.ndarray:
    """Free energy (kT, :func:`free_energy`) of the weighted 2-D histogram of (n, 2) ``points`` on ``edges``."""
    return free_energy(histogram2d(np.asarray(points)[:, :2], edges, weights))


def draw_surface(ax, edges, energy: np.ndarray, cmap: str = "Greys_r", vmax: float | None = VMAX):
    """``energy`` (bins x bins, first axis along x) as a colour mesh on ``edges``, empty bins left blank."""
    return ax.pcolormesh(
        edges[0], edges[1], np.ma.masked_invalid(energy.T), cmap=cmap, vmax=vmax, shading="flat", rasterized=True
    )


def draw_contours(ax, edges, energy: np.ndarray, levels=LEVELS):
    """``energy`` as contour lines at ``levels`` (kT), labelled; None where it has too few finite bins to draw."""
    if np.isfinite(energy).sum() <= 3:
        return None
    centres = [0.5 * (e[1:] + e[:-1]) for e in edges]
    lines = ax.contour(
        centres[0],
        centres[1],
        np.nan_to_num(energy.T, nan=np.nanmax(energy) + 1),
        levels=levels,
        cmap="autumn",
        linewidths=0.9,
    )
    ax.clabel(lines, fontsize=6, fmt="%d kT")
    return lines
