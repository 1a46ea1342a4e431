"""Figures of the metric suite (matplotlib, Agg backend), one PNG per kind, named consistently.

Files written by :func:`write_metric_figures` into a folder:

- ``tic_densities_1d.png``: TIC 0..3 densities, ground truth against the model.
- ``tic_densities_2d.png``: TIC 0/1, 1/2, 2/3 free energies of the ground truth, model contours on top.
- ``tic01_by_iteration.png``: model points in TIC 0/1 coloured by WE iteration over the ground truth.
- ``contact_map_difference.png``: model minus ground-truth mean C-alpha distance, diverging colours.
- ``macrostates.png``: ground truth and model in TIC 0/1 coloured by ground-truth macrostate.

Densities are weighted histograms (``density: histogram``, ``bins``) or weighted
Gaussian KDEs (``density: kde``, ``kde_bandwidth`` as scipy's ``bw_method``).
Scatter plots draw at most ``scatter_max_points`` points, a seeded uniform subsample.

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

from pathlib import Path
from typing import Mapping

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import TwoSlopeNorm  # noqa: E402

from westbench.metrics.divergences import common_edges  # noqa: E402
from westbench.metrics.weighted import histogram, histogram2d, kde, normalized  # noqa: E402

FIGURES = ("tic_densities_1d", "tic_densities_2d", "tic01_by_iteration", "contact_map_difference", "macrostates")
TIC_PAIRS = ((0, 1), (1, 2), (2, 3))
GROUNDTRUTH_COLOUR, MODEL_COLOUR = "0.25", "tab:orange"


def density_1d(values: np.ndarray, edges: np.ndarray, weights=None, method: str = "histogram",
               bandwidth: float | str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Probability density of weighted 1-D values on ``edges``: (x, p(x)), histogram or KDE."""
    centres = 0.5 * (edges[1:] + edges[:-1])
    if method == "kde":
        return centres, kde(values, centres, weights, bandwidth)
    return centres, histogram(values, edges, weights) / np.diff(edges)


def free_energy(probability: np.ndarray) -> np.ndarray:
    """-ln p shifted to a minimum of zero (kT); empty bins are NaN."""
    with np.errstate(divide="ignore"):
        energy = -np.log(np.where(probability > 0, probability, np.nan))
    return energy - np.nanmin(energy) if np.isfinite(energy).any() else energy


def tic_densities_1d(groundtruth_tics, groundtruth_weights, model_tics, model_weights, path, bins: int = 100,
                     method: str = "histogram", bandwidth=None, label: str = "model") -> None:
    """TIC 0..3 densities (as many as both sets have, at most four), one panel each."""
    n = min(4, groundtruth_tics.shape[1], model_tics.shape[1])
    figure, axes = plt.subplots(1, n, figsize=(3.2 * n, 3), dpi=110, squeeze=False)
    for i, ax in enumerate(axes[0]):
        edges = common_edges(groundtruth_tics[:, i], model_tics[:, i], bins)
        for values, weights, colour, name in ((groundtruth_tics, groundtruth_weights, GROUNDTRUTH_COLOUR, "ground truth"),
                                              (model_tics, model_weights, MODEL_COLOUR, label)):
            x, p = density_1d(values[:, i], edges, weights, method, bandwidth)
            ax.plot(x, p, color=colour, label=name, lw=1.4)
        ax.set_xlabel(f"TIC {i}")
        ax.set_ylabel("density" if i == 0 else "")
    axes[0][0].legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def tic_densities_2d(groundtruth_tics, groundtruth_weights, model_tics, model_weights, path, bins: int = 100,
                     label: str = "model", levels=(1, 2, 3, 4, 5)) -> None:
    """Ground-truth free energy per TIC pair (colour) with the model's free-energy contours (lines, kT)."""
    pairs = [pair for pair in TIC_PAIRS if max(pair) < min(groundtruth_tics.shape[1], model_tics.shape[1])]
    figure, axes = plt.subplots(1, len(pairs), figsize=(4 * len(pairs), 3.5), dpi=110, squeeze=False)
    for (a, b), ax in zip(pairs, axes[0]):
        edges = tuple(common_edges(groundtruth_tics[:, d], model_tics[:, d], bins) for d in (a, b))
        reference = free_energy(histogram2d(groundtruth_tics[:, [a, b]], edges, groundtruth_weights))
        mesh = ax.pcolormesh(edges[0], edges[1], np.ma.masked_invalid(reference.T), cmap="Greys_r", shading="flat",
                             vmax=8, rasterized=True)
        model = free_energy(histogram2d(model_tics[:, [a, b]], edges, model_weights))
        centres = [0.5 * (e[1:] + e[:-1]) for e in edges]
        if np.isfinite(model).sum() > 3:
            ax.contour(centres[0], centres[1], np.nan_to_num(model.T, nan=np.nanmax(model) + 1), levels=levels,
                       cmap="autumn", linewidths=0.9)
        ax.set_xlabel(f"TIC {a}")
        ax.set_ylabel(f"TIC {b}")
        figure.colorbar(mesh, ax=ax, label="ground truth free energy (kT)")
    axes[0][0].set_title(f"contours: {label} (kT)", fontsize=9, loc="left")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def subsample(n: int, max_points: int, seed: int = 0) -> np.ndarray:
    """Sorted indices of at most ``max_points`` of ``n`` points, uniform without replacement, seeded."""
    if n <= max_points:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, max_points, replace=False))


def tic01_by_iteration(groundtruth_tics, model_tics, iteration, path, max_points: int = 100_000, seed: int = 0,
                       label: str = "model") -> None:
    """Model points in TIC 0/1 coloured by WE iteration over the ground truth's histogram."""
    figure, ax = plt.subplots(figsize=(5.2, 4.2), dpi=110)
    ax.hist2d(groundtruth_tics[:, 0], groundtruth_tics[:, 1], bins=100, cmap="Greys", cmin=1, rasterized=True)
    keep = subsample(len(model_tics), max_points, seed)
    points = ax.scatter(model_tics[keep, 0], model_tics[keep, 1], c=np.asarray(iteration)[keep], s=2, cmap="viridis",
                        rasterized=True)
    figure.colorbar(points, ax=ax, label="WE iteration")
    ax.set_xlabel("TIC 0")
    ax.set_ylabel("TIC 1")
    ax.set_title(f"{label}: points by iteration (grey: ground truth)", fontsize=9)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def contact_map_difference(difference: np.ndarray, path, label: str = "model") -> None:
    """Model minus ground-truth mean C-alpha distance (Angstrom), diverging colours centred on zero."""
    difference = np.asarray(difference, dtype=np.float64)
    limit = max(float(np.abs(difference).max()), 1e-3)
    figure, ax = plt.subplots(figsize=(4.8, 4), dpi=110)
    image = ax.imshow(difference, cmap="RdBu_r", norm=TwoSlopeNorm(0.0, -limit, limit), origin="lower")
    figure.colorbar(image, ax=ax, label=f"{label} - ground truth (Å)")
    ax.set_xlabel("residue")
    ax.set_ylabel("residue")
    ticks = np.arange(len(difference))
    ax.set_xticks(ticks[:: max(1, len(ticks) // 10)], ticks[:: max(1, len(ticks) // 10)] + 1)
    ax.set_yticks(ticks[:: max(1, len(ticks) // 10)], ticks[:: max(1, len(ticks) // 10)] + 1)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def macrostate_scatter(groundtruth_tics, groundtruth_labels, model_tics, model_labels, path,
                       max_points: int = 100_000, seed: int = 0, label: str = "model") -> None:
    """Ground truth and model in TIC 0/1, each point coloured by its ground-truth macrostate (-1 grey)."""
    n_states = int(max(np.max(groundtruth_labels), np.max(model_labels))) + 1
    colours = plt.get_cmap("tab10")
    figure, axes = plt.subplots(1, 2, figsize=(9, 4), dpi=110, sharex=True, sharey=True)
    for ax, tics, labels, title in ((axes[0], groundtruth_tics, groundtruth_labels, "ground truth"),
                                    (axes[1], model_tics, model_labels, label)):
        keep = subsample(len(tics), max_points, seed)
        labels = np.asarray(labels)[keep]
        ax.scatter(tics[keep][labels < 0, 0], tics[keep][labels < 0, 1], s=1, c="0.8", rasterized=True)
        for state in range(n_states):
            members = labels == state
            ax.scatter(tics[keep][members, 0], tics[keep][members, 1], s=1, color=colours(state % 10),
                       label=f"macrostate {state}", rasterized=True)
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("TIC 0")
    axes[0].set_ylabel("TIC 1")
    axes[1].legend(markerscale=6, fontsize=7, loc="best")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def write_metric_figures(folder, groundtruth: Mapping, model: Mapping, weights: np.ndarray, values: Mapping,
                         labels: Mapping, settings: Mapping, label: str = "model") -> dict[str, Path]:
    """Every figure of one (protein, engine) into ``folder``; returns {name: path}.

    ``weights`` are the model's frame weights, ``values`` the suite's scores (for the
    contact map), ``labels`` the macrostate assignment of
    :meth:`westbench.metrics.suite.MetricSuite.macrostates`.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = {name: folder / f"{name}.png" for name in FIGURES}
    gt_tics = np.asarray(groundtruth["tics"], dtype=np.float64)
    model_tics = np.asarray(model["tics"], dtype=np.float64)
    gt_weights = normalized(groundtruth["weight"])
    bins = settings.get("bins", 100)
    max_points, seed = settings.get("scatter_max_points", 100_000), settings.get("seed", 0)
    tic_densities_1d(gt_tics, gt_weights, model_tics, weights, paths["tic_densities_1d"], bins,
                     settings.get("density", "histogram"), settings.get("kde_bandwidth"), label)
    tic_densities_2d(gt_tics, gt_weights, model_tics, weights, paths["tic_densities_2d"], bins, label)
    iteration = np.asarray(model["iteration"]) if "iteration" in model else np.zeros(len(model_tics))
    tic01_by_iteration(gt_tics, model_tics, iteration, paths["tic01_by_iteration"], max_points, seed, label)
    contact_map_difference(values["contact_map_diff_A"], paths["contact_map_difference"], label)
    macrostate_scatter(gt_tics, labels["groundtruth"], model_tics, labels["model"], paths["macrostates"], max_points,
                       seed, label)
    return paths
