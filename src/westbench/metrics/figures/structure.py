"""Structure of the model against the ground truth: the contact-map difference and the ground-truth macrostates.

Scatter plots draw at most ``scatter_max_points`` points, a seeded uniform subsample.
"""

from __future__ import annotations

import numpy as np
from matplotlib.colors import TwoSlopeNorm

from westbench.metrics.estimability import NotEstimable
from westbench.metrics.figures.base import plt, save, subsample


def contact_map_difference(difference: np.ndarray, path, label: str = "model") -> None:
    """Model minus ground-truth mean C-alpha distance (Angstrom), diverging colours centred on zero."""
    difference = np.asarray(difference, dtype=np.float64)
    # nanmax: a NaN cell (a pair never measured) must not turn the scale into matplotlib's silent default
    limit = max(float(np.nanmax(np.abs(difference), initial=0.0)), 1e-3)
    figure, ax = plt.subplots(figsize=(4.8, 4), dpi=110)
    image = ax.imshow(difference, cmap="RdBu_r", norm=TwoSlopeNorm(0.0, -limit, limit), origin="lower")
    figure.colorbar(image, ax=ax, label=f"{label} - ground truth (Å)")
    ax.set_xlabel("residue")
    ax.set_ylabel("residue")
    ticks = np.arange(len(difference))
    ax.set_xticks(ticks[:: max(1, len(ticks) // 10)], ticks[:: max(1, len(ticks) // 10)] + 1)
    ax.set_yticks(ticks[:: max(1, len(ticks) // 10)], ticks[:: max(1, len(ticks) // 10)] + 1)
    save(figure, path)


def macrostate_scatter(
    groundtruth_tics,
    groundtruth_labels,
    model_tics,
    model_labels,
    path,
    max_points: int = 100_000,
    seed: int = 0,
    label: str = "model",
) -> None:
    """Ground truth and model in TIC 0/1, each point coloured by its ground-truth macrostate (-1 grey)."""
    n_states = int(max(np.max(groundtruth_labels), np.max(model_labels))) + 1
    colours = plt.get_cmap("tab10")
    figure, axes = plt.subplots(1, 2, figsize=(9, 4), dpi=110, sharex=True, sharey=True)
    for ax, tics, labels, title in (
        (axes[0], groundtruth_tics, groundtruth_labels, "ground truth"),
        (axes[1], model_tics, model_labels, label),
    ):
        keep = subsample(len(tics), max_points, seed)
        labels = np.asarray(labels)[keep]
        ax.scatter(tics[keep][labels < 0, 0], tics[keep][labels < 0, 1], s=1, c="0.8", rasterized=True)
        for state in range(n_states):
            members = labels == state
            if not members.any():  # no point of this state in this panel: no legend entry without points
                continue
            ax.scatter(
                tics[keep][members, 0],
                tics[keep][members, 1],
                s=1,
                color=colours(state % 10),
                label=f"macrostate {state}",
                rasterized=True,
            )
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("TIC 0")
    axes[0].set_ylabel("TIC 1")
    # One legend for both panels: each state drawn in either, once, in state order.
    entries = {}
    for ax in axes:
        for handle, text in zip(*ax.get_legend_handles_labels()):
            entries.setdefault(text, handle)
    if entries:
        order = sorted(entries, key=lambda text: int(text.rsplit(" ", 1)[1]))
        axes[1].legend([entries[t] for t in order], order, markerscale=6, fontsize=7, loc="best")
    save(figure, path)


# The registry's functions (westbench.metrics.figure_list): each figure from the job's data.


def draw_contact_map_difference(data, path) -> None:
    if data.values.get("contact_map_diff_A") is None:
        raise NotEstimable("the contact map of this weighting could not be estimated")
    contact_map_difference(data.values["contact_map_diff_A"], path, data.label)


def draw_macrostates(data, path) -> None:
    macrostate_scatter(
        data.groundtruth_tics,
        data.labels["groundtruth"],
        data.model_tics,
        data.labels["model"],
        path,
        data.settings.scatter_max_points,
        data.settings.seed,
        data.label,
    )
