"""The calibration study's two figures: resolution (divergence against perturbation size) and convergence
(the null engine's divergence against WE iterations, falling toward the floor)."""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

LABELS = {"tic0": "W1(TIC 0)", "tic1": "W1(TIC 1)", "rg": "W1(Rg) / Å"}


def _axes(n: int, title: str):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, n, figsize=(4.2 * n, 3.6), squeeze=False)
    figure.suptitle(title, fontsize=10)
    return plt, figure, axes[0]


def resolution_figure(table: pd.DataFrame, path, title: str = "") -> None:
    """Per distribution: each perturbation family's W1 (with its interval) against its size in %, the null at 0,
    the reweighting prediction (open markers) and the ground truth's noise floor (band: its central 95 %)."""
    from westbench.calibration.table import DISTRIBUTIONS

    names = [n for n in DISTRIBUTIONS if n in set(table["distribution"])]
    plt, figure, axes = _axes(len(names), title)
    families = {
        "temperature": ("temperature_scale", "contact_scale", "tab:red"),
        "native contacts": ("contact_scale", "temperature_scale", "tab:blue"),
    }
    for axis, name in zip(axes, names):
        rows = table[table["distribution"] == name]
        null = rows[rows["kind"] == "null"]
        if not null.empty and pd.notna(null["floor_high"].iloc[0]):
            axis.axhspan(
                float(null["floor_low"].iloc[0]),
                float(null["floor_high"].iloc[0]),
                color="0.85",
                label="noise floor (95 %)",
            )
        for label, (column, other, color) in families.items():
            family = rows[(rows["kind"].isin(["null", "perturbation"])) & (rows[other] == 1.0)]
            family = family.assign(size=100 * (family[column] - 1.0).abs()).sort_values("size")
            if family["size"].nunique() < 2:
                continue
            value = family["value"].astype(float).to_numpy()
            low = value - family["ci_low"].astype(float).fillna(family["value"]).to_numpy()
            high = family["ci_high"].astype(float).fillna(family["value"]).to_numpy() - value
            axis.errorbar(
                family["size"],
                value,
                yerr=[np.maximum(low, 0), np.maximum(high, 0)],
                marker="o",
                color=color,
                capsize=3,
                label=f"{label}: measured",
            )
            axis.plot(
                family["size"],
                family["predicted"].astype(float),
                ls=":",
                marker="o",
                mfc="none",
                color=color,
                label=f"{label}: predicted (reweighting)",
            )
        axis.set_xlabel("perturbation size (%)")
        axis.set_ylabel(LABELS.get(name, name))
    axes[0].legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def convergence_figure(
    groundtruth: Mapping, null: Mapping, floors: Mapping[str, float], path, title: str = "", discard: float = 0.0
) -> None:
    """Per distribution: the null engine's W1 from its frames up to each WE iteration (WE weights) with the
    leading ``discard`` left out as the metrics leave it out (a share < 1 of those iterations, or a count), against
    the iteration (bottom axis) and the segments run (top axis), with the ground truth's floor (upper bound)."""
    from westbench.calibration.table import DISTRIBUTIONS
    from westbench.metrics.divergences import Wasserstein1D
    from westbench.metrics.suite import distributions

    reference, sample = distributions(groundtruth), distributions(null)
    gt_w = np.full(len(groundtruth["ca"]), 1.0 / len(groundtruth["ca"]))
    iterations = np.asarray(null["iteration"])
    steps = np.unique(iterations)
    segments = np.array([len(np.unique(np.asarray(null["traj"])[iterations == i])) for i in steps]).cumsum()
    plt, figure, axes = _axes(len(DISTRIBUTIONS), title)
    for axis, name in zip(axes, DISTRIBUTIONS):
        distance = Wasserstein1D(reference[name], sample[name])
        values = []
        for last in steps:
            first = int(np.floor(discard * last)) if discard < 1 else int(discard)
            first = min(first, last - 1)  # at least the last iteration
            inside = (iterations <= last) & (iterations > first)
            w = np.where(inside, np.asarray(null["weight"], dtype=np.float64), 0.0)
            w = w / w.sum()
            values.append(distance(np.repeat(gt_w, reference[name].shape[1]), np.repeat(w, sample[name].shape[1])))
        window = "the later half of the iterations so far" if discard == 0.5 else "the iterations so far"
        axis.plot(steps, values, marker="o", ms=3, label=f"null engine ({window})")
        if name in floors and np.isfinite(floors[name]):
            axis.axhline(floors[name], color="tab:red", ls="--", lw=1, label="noise floor (upper bound)")
        axis.set_xlabel("WE iteration")
        axis.set_ylabel(LABELS.get(name, name))
        top = axis.secondary_xaxis(
            "top", functions=(lambda x: np.interp(x, steps, segments), lambda s: np.interp(s, segments, steps))
        )
        top.set_xlabel("segments", fontsize=8)
    axes[0].legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
