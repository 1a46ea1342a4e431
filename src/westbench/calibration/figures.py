"""The calibration study's two figures: resolution (divergence against perturbation size) and convergence
(the null engine's divergence against WE iterations, falling toward the floor)."""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

from westbench.calibration.table_rows import DISTRIBUTIONS
from westbench.presentation.figure_layout import fit_titles

LABELS = {"tic0": "W1(TIC 0)", "tic1": "W1(TIC 1)", "rg": "W1(Rg) / Å"}


def _axes(n: int, title: str):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, n, figsize=(4.2 * n, 3.6), squeeze=False)
    figure.suptitle(title, fontsize=10)
    return plt, figure, axes[0]


def _window(discard: float) -> str:
    """The iterations a convergence point keeps, in words: ``discard`` a share (< 1) or a count of iterations.

    >>> _window(0.5), _window(0)
    ('the later half of the iterations so far', 'the iterations so far')
    >>> _window(0.25), _window(3)
    ('the iterations so far after the first 0.25 of them', 'the iterations so far after the first 3')
    """
    if discard == 0.5:
        return "the later half of the iterations so far"
    if discard == 0:
        return "the iterations so far"
    return f"the iterations so far after the first {discard:g}" + (" of them" if discard < 1 else "")


def resolution_figure(table: pd.DataFrame, path, title: str = "") -> None:
    """Per distribution: each perturbation family's W1 (with its interval) against its size in %, the null at 0,
    the reweighting prediction (open markers) and the ground truth's noise floor (band: its central 95 %)."""
    names = [n for n in DISTRIBUTIONS if n in set(table["distribution"])]
    if not names:
        raise ValueError(
            f"the calibration table has none of the distributions {', '.join(DISTRIBUTIONS)}: nothing to draw "
            "(was it written by westbench.calibration.table?)"
        )
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
    fit_titles(figure)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def convergence_figure(
    groundtruth: Mapping,
    null: Mapping,
    floors: Mapping[str, float],
    path,
    title: str = "",
    discard: float = 0.0,
    final: Mapping[str, Mapping] | None = None,
) -> None:
    """Per distribution: the null engine's W1 from its frames up to each WE iteration (WE weights) with the
    leading ``discard`` left out as the metrics leave it out (a share < 1 of those iterations, or a count), against
    the iteration (bottom axis) and the segments run (top axis), with the ground truth's floor (upper bound).

    ``final``: per distribution the study table's ``value``, ``ci_low``, ``ci_high`` and ``verdict`` of the whole
    run, drawn at the last iteration: the verdict compares that interval with the floor, so an estimate above the
    floor line is within noise when its interval reaches below it, and the figure shows why."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator

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
        axis.plot(steps, values, marker="o", ms=3, label=f"null engine ({_window(discard)})")
        if name in floors and np.isfinite(floors[name]):
            axis.axhline(floors[name], color="tab:red", ls="--", lw=1, label="noise floor (upper bound)")
        whole = (final or {}).get(name)
        if whole and all(np.isfinite(float(whole[k])) for k in ("value", "ci_low", "ci_high")):
            value = float(whole["value"])
            axis.errorbar(
                [steps[-1]],
                [value],
                yerr=[[max(value - float(whole["ci_low"]), 0)], [max(float(whole["ci_high"]) - value, 0)]],
                fmt="s",
                ms=5,
                color="k",
                capsize=4,
                zorder=3,
                label="the whole run: estimate, 95 % interval and verdict",
            )
            axis.set_title(f"whole run: {whole.get('verdict', '')}", fontsize=8, loc="right")
        axis.set_xlabel("WE iteration")
        axis.set_ylabel(LABELS.get(name, name))
        top = axis.secondary_xaxis(
            "top", functions=(lambda x: np.interp(x, steps, segments), lambda s: np.interp(s, segments, steps))
        )
        # A few ticks in thousands, none past the last segment (the axis maps beyond it onto the last iteration):
        # five-digit counts at every default tick ran into each other.
        ticks = MaxNLocator(4, integer=True).tick_values(0, segments[-1])
        top.xaxis.set_major_locator(FixedLocator([t for t in ticks if 0 <= t <= segments[-1]]))
        top.xaxis.set_major_formatter(FuncFormatter(lambda s, _: f"{s / 1000:g}k" if s >= 1000 else f"{s:g}"))
        top.tick_params(labelsize=8)
        top.set_xlabel("segments", fontsize=8)
    axes[0].legend(fontsize=7)
    fit_titles(figure)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
