"""Distributions of ground truth and model: TIC densities, TIC-pair free energies, C-alpha geometry.

Densities are weighted histograms (``density: histogram``, ``bins``) or weighted Gaussian KDEs
(``density: kde``, ``kde_bandwidth`` as scipy's ``bw_method``).

Examples
--------
>>> import numpy as np, tempfile, os
>>> rng = np.random.default_rng(0)
>>> tics = rng.normal(size=(500, 4))
>>> with tempfile.TemporaryDirectory() as folder:
...     tic_densities_1d(tics, None, tics + 0.5, None, os.path.join(folder, "d.png"))
...     os.path.getsize(os.path.join(folder, "d.png")) > 0
True
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from westbench.config import default
from westbench.metrics.figures.base import GROUNDTRUTH_COLOUR, MODEL_COLOUR, TIC_PAIRS, plt, save
from westbench.metrics.figures.free_energy import LEVELS, draw_contours, draw_surface, surface
from westbench.metrics.weighted import histogram, kde


def density_1d(
    values: np.ndarray, edges: np.ndarray, weights=None, method: str = "histogram", bandwidth: float | str | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Probability density of weighted 1-D values on ``edges``: (x, p(x)), histogram or KDE."""
    centres = 0.5 * (edges[1:] + edges[:-1])
    if method == "kde":
        return centres, kde(values, centres, weights, bandwidth)
    return centres, histogram(values, edges, weights) / np.diff(edges)


def display_edges(reference: np.ndarray, model: np.ndarray, bins: int, share: float = 0.005) -> np.ndarray:
    """``bins`` + 1 edges a figure draws on: the ground truth's range, widened to the model's central 99 % so a
    few frames far away (an exploded walker) do not squash the view; the scores' grids are the suite's."""
    reference, model = np.ravel(reference).astype(np.float64), np.ravel(model).astype(np.float64)
    reference, model = reference[np.isfinite(reference)], model[np.isfinite(model)]
    low, high = float(reference.min()), float(reference.max())
    if len(model):
        low, high = min(low, float(np.quantile(model, share))), max(high, float(np.quantile(model, 1 - share)))
    if high <= low:
        high = low + 1e-9
    return np.linspace(low, high, bins + 1)


def tic_densities_1d(
    groundtruth_tics,
    groundtruth_weights,
    model_tics,
    model_weights,
    path,
    bins: int = default("metrics.bins"),
    method: str = "histogram",
    bandwidth=None,
    label: str = "model",
) -> None:
    """TIC 0..3 densities (as many as both sets have, at most four), one panel each."""
    n = min(4, groundtruth_tics.shape[1], model_tics.shape[1])
    figure, axes = plt.subplots(1, n, figsize=(3.2 * n, 3), dpi=110, squeeze=False)
    for i, ax in enumerate(axes[0]):
        edges = display_edges(groundtruth_tics[:, i], model_tics[:, i], bins)
        for values, weights, colour, name in (
            (groundtruth_tics, groundtruth_weights, GROUNDTRUTH_COLOUR, "ground truth"),
            (model_tics, model_weights, MODEL_COLOUR, label),
        ):
            x, p = density_1d(values[:, i], edges, weights, method, bandwidth)
            ax.plot(x, p, color=colour, label=name, lw=1.4)
        ax.set_xlabel(f"TIC {i}")
        ax.set_ylabel("density" if i == 0 else "")
    axes[0][0].legend(fontsize=8)
    save(figure, path)


def tic_densities_2d(
    groundtruth_tics,
    groundtruth_weights,
    model_tics,
    model_weights,
    path,
    bins: int = default("metrics.bins"),
    label: str = "model",
    levels=LEVELS,
) -> None:
    """Ground-truth free energy per TIC pair (colour) with the model's free-energy contours (lines, kT)."""
    pairs = [pair for pair in TIC_PAIRS if max(pair) < min(groundtruth_tics.shape[1], model_tics.shape[1])]
    figure, axes = plt.subplots(1, len(pairs), figsize=(4 * len(pairs), 3.5), dpi=110, squeeze=False)
    for (a, b), ax in zip(pairs, axes[0]):
        edges = tuple(display_edges(groundtruth_tics[:, d], model_tics[:, d], bins) for d in (a, b))
        mesh = draw_surface(ax, edges, surface(groundtruth_tics[:, [a, b]], edges, groundtruth_weights))
        lines = draw_contours(ax, edges, surface(model_tics[:, [a, b]], edges, model_weights), levels)
        if lines is not None:
            handles, _ = lines.legend_elements()
            if handles:
                ax.legend(handles[:1], [f"{label} (contours, kT)"], fontsize=7, loc="upper right")
        ax.set_xlabel(f"TIC {a}")
        ax.set_ylabel(f"TIC {b}")
        figure.colorbar(mesh, ax=ax, label="ground truth free energy (kT)")
    axes[0][0].set_title(f"contours: {label} (kT)", fontsize=9, loc="left")
    save(figure, path)


STRUCTURE_PANELS = (
    ("rg", "radius of gyration (Å)", 1.0),
    ("bonds", "C-alpha bond length (Å)", 1.0),
    ("angles", "C-alpha angle (degrees)", 1.0),
    ("dihedrals", "C-alpha dihedral (degrees)", 1.0),
)


def structure_distributions(
    reference: Mapping,
    sample: Mapping,
    groundtruth_weights,
    model_weights,
    path,
    bins: int = default("metrics.bins"),
    label: str = "model",
) -> None:
    """Rg, C-alpha bond, angle and dihedral densities of ground truth and model (four panels).

    ``reference`` and ``sample`` map ``rg``, ``bonds``, ``angles``, ``dihedrals`` to
    per-frame values (n_frames, k) in Angstrom and degrees, as
    :func:`westbench.metrics.suite.distributions` returns them.
    """
    panels = [panel for panel in STRUCTURE_PANELS if panel[0] in reference and panel[0] in sample]
    figure, axes = plt.subplots(1, len(panels), figsize=(3.6 * len(panels), 3.2), dpi=110, squeeze=False)
    for (name, axis_label, scale), ax in zip(panels, axes[0]):
        ref, mod = np.asarray(reference[name]) * scale, np.asarray(sample[name]) * scale
        edges = display_edges(ref.ravel(), mod.ravel(), bins)
        for values, weights, colour, legend in (
            (ref, groundtruth_weights, GROUNDTRUTH_COLOUR, "ground truth"),
            (mod, model_weights, MODEL_COLOUR, label),
        ):
            per_value = None if weights is None else np.repeat(weights, values.shape[1])
            x, p = density_1d(values.ravel(), edges, per_value)
            ax.plot(x, p, color=colour, label=legend, lw=1.4)
        if name == "bonds":
            ax.axvspan(3.5, 4.5, color="tab:green", alpha=0.08, label="3.5-4.5 Å")
        ax.set_xlabel(axis_label)
        ax.set_ylabel("density" if name == panels[0][0] else "")
    axes[0][0].legend(fontsize=8)
    save(figure, path)


# The registry's functions (westbench.metrics.figure_list): each figure from the job's data.


def draw_tic_densities_1d(data, path) -> None:
    s = data.settings
    tic_densities_1d(
        data.groundtruth_tics,
        data.groundtruth_weights,
        data.model_tics,
        data.weights,
        path,
        s.bins,
        s.density,
        s.kde_bandwidth,
        data.label,
    )


def draw_tic_densities_2d(data, path) -> None:
    tic_densities_2d(
        data.groundtruth_tics,
        data.groundtruth_weights,
        data.model_tics,
        data.weights,
        path,
        data.settings.bins,
        data.label,
    )


def draw_structure_distributions(data, path) -> None:
    structure_distributions(
        data.distributions[0],
        data.distributions[1],
        data.groundtruth_weights,
        data.weights,
        path,
        data.settings.bins,
        data.label,
    )
