"""Figures of the metric suite (matplotlib, Agg backend), one PNG per kind, named consistently.

Files written by :func:`write_metric_figures` into a folder:

- ``tic_densities_1d.png``: TIC 0..3 densities, ground truth against the model.
- ``tic_densities_2d.png``: TIC 0/1, 1/2, 2/3 free energies of the ground truth, model contours on top.
- ``tic01_by_iteration.png``: model points in TIC 0/1, 1/2 and 2/3 coloured by WE iteration over the
  ground truth; for the ground truth itself, coloured by run (starting point) and by TIC 3.
- ``structure_distributions.png``: radius of gyration, C-alpha bond, angle and dihedral distributions.
- ``msm_reweighting.png``: the grid MSM over TIC 0/1 (log transition matrix), MSM against raw weight
  per cell, and the TIC 0/1 free energies the two weightings give.
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

import logging
from pathlib import Path
from typing import Callable, Mapping

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import TwoSlopeNorm  # noqa: E402

from westbench.config import section_defaults  # noqa: E402
from westbench.metrics.divergences import common_edges  # noqa: E402
from westbench.metrics.estimability import Caveats, NotEstimable  # noqa: E402
from westbench.metrics.figure_list import FIGURES  # noqa: E402,F401  (the one list: name -> report label)
from westbench.metrics.weighted import histogram, histogram2d, kde, normalized  # noqa: E402

log = logging.getLogger(__name__)

TIC_PAIRS = ((0, 1), (1, 2), (2, 3))
MAX_MATRIX_CELLS = 400  # rows and columns of the transition-matrix panel at most
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
            lines = ax.contour(centres[0], centres[1], np.nan_to_num(model.T, nan=np.nanmax(model) + 1),
                               levels=levels, cmap="autumn", linewidths=0.9)
            ax.clabel(lines, fontsize=6, fmt="%d kT")
            handles, _ = lines.legend_elements()
            if handles:
                ax.legend(handles[:1], [f"{label} (contours, kT)"], fontsize=7, loc="upper right")
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
                       label: str = "model", runs=None) -> None:
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
    axes[0][0].set_title(f"{label}: points {what} (under them: ground-truth histogram, grey scale)", fontsize=9,
                         loc="left")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


STRUCTURE_PANELS = (("rg", "radius of gyration (Å)", 1.0), ("bonds", "C-alpha bond length (Å)", 1.0),
                    ("angles", "C-alpha angle (degrees)", 1.0), ("dihedrals", "C-alpha dihedral (degrees)", 1.0))


def structure_distributions(reference: Mapping, sample: Mapping, groundtruth_weights, model_weights, path,
                            bins: int = 100, label: str = "model") -> None:
    """Rg, C-alpha bond, angle and dihedral densities of ground truth and model (four panels).

    ``reference`` and ``sample`` map ``rg``, ``bonds``, ``angles``, ``dihedrals`` to
    per-frame values (n_frames, k) in Angstrom and degrees, as
    :func:`westbench.metrics.suite.distributions` returns them.
    """
    panels = [panel for panel in STRUCTURE_PANELS if panel[0] in reference and panel[0] in sample]
    figure, axes = plt.subplots(1, len(panels), figsize=(3.6 * len(panels), 3.2), dpi=110, squeeze=False)
    for (name, axis_label, scale), ax in zip(panels, axes[0]):
        ref, mod = np.asarray(reference[name]) * scale, np.asarray(sample[name]) * scale
        edges = common_edges(ref.ravel(), mod.ravel(), bins)
        for values, weights, colour, legend in ((ref, groundtruth_weights, GROUNDTRUTH_COLOUR, "ground truth"),
                                                (mod, model_weights, MODEL_COLOUR, label)):
            per_value = None if weights is None else np.repeat(weights, values.shape[1])
            x, p = density_1d(values.ravel(), edges, per_value)
            ax.plot(x, p, color=colour, label=legend, lw=1.4)
        if name == "bonds":
            ax.axvspan(3.5, 4.5, color="tab:green", alpha=0.08, label="3.5-4.5 Å")
        ax.set_xlabel(axis_label)
        ax.set_ylabel("density" if name == panels[0][0] else "")
    axes[0][0].legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def msm_reweighting(model_tics, traj, raw_weights, path, bins: int = 80, lag: int = 1, label: str = "model") -> None:
    """The grid MSM behind the ``msm`` weighting, against the raw (WE) weights.

    Panels: log10 of the row-normalized transition matrix between occupied cells of the
    ``bins`` x ``bins`` TIC 0/1 grid; MSM stationary against raw weight per cell (log-log);
    TIC 0/1 free energy under the raw weights and under the MSM weights.
    """
    from westbench.metrics.msm import grid_msm_weights, grid_states, sliding_counts

    tics = np.asarray(model_tics, dtype=np.float64)[:, :2]
    edges = tuple(np.linspace(tics[:, d].min(), tics[:, d].max(), bins + 1) for d in range(2))
    cells = grid_states(tics, bins, edges)
    symbols, dense = np.unique(cells, return_inverse=True)
    msm = grid_msm_weights(tics, traj, bins, lag, edges)  # NotEstimable: the figure says why instead
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
        energy = free_energy(histogram2d(tics, edges, weights))
        mesh = ax.pcolormesh(edges[0], edges[1], np.ma.masked_invalid(energy.T), cmap="viridis", vmax=8,
                             shading="flat", rasterized=True)
        figure.colorbar(mesh, ax=ax, label="free energy (kT)")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("TIC 0")
        ax.set_ylabel("TIC 1")
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
    if n_states > 0:
        axes[1].legend(markerscale=6, fontsize=7, loc="best")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def placeholder(path, title: str, reason: str) -> None:
    """A figure that says why it could not be drawn (the report shows it where the figure would be)."""
    figure, ax = plt.subplots(figsize=(6, 2.2), dpi=110)
    ax.axis("off")
    ax.text(0.5, 0.5, f"{title}: not drawn\n{reason}", ha="center", va="center", wrap=True, fontsize=9)
    figure.savefig(path)
    plt.close(figure)


def draw_or_explain(path, name: str, draw: Callable[[], None], caveats: Caveats) -> None:
    """Draw one figure; where the data cannot give it, a :func:`placeholder` with the reason, recorded in
    ``caveats`` as ``figure/<name>``. A figure never costs the job its metrics: an unexpected error is logged
    with its traceback and explained the same way."""
    try:
        draw()
        return
    except NotEstimable as exc:
        reason = str(exc)
    except Exception as exc:  # noqa: BLE001 (the metrics are written already; say why this figure is missing)
        log.exception("figure %s could not be drawn", name)
        reason = f"could not be drawn ({type(exc).__name__}: {exc})"
    plt.close("all")
    caveats.add(f"figure/{name}", reason)
    placeholder(path, FIGURES.get(name, name), reason)


def write_metric_figures(folder, groundtruth: Mapping, model: Mapping, weights: np.ndarray | None, values: Mapping,
                         labels: Mapping, settings: Mapping, label: str = "model",
                         distributions: tuple[Mapping, Mapping] | None = None,
                         caveats: Caveats | None = None) -> dict[str, Path]:
    """Every figure of one (protein, engine) into ``folder``; returns {name: path}.

    ``weights`` are the model's frame weights (None: no weighting could be estimated; uniform
    weights are drawn and the caveat recorded), ``values`` the suite's scores (for the contact
    map), ``labels`` the macrostate assignment of
    :meth:`westbench.metrics.suite.MetricSuite.macrostates`, ``distributions`` the suite's
    (reference, sample) per-frame values (computed here when not given). A figure the data
    cannot give is a placeholder saying why, recorded in ``caveats`` (``figure/<name>``).
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    caveats = Caveats() if caveats is None else caveats
    paths = {name: folder / f"{name}.png" for name in FIGURES}
    gt_tics = np.asarray(groundtruth["tics"], dtype=np.float64)
    model_tics = np.asarray(model["tics"], dtype=np.float64)
    gt_weights = normalized(groundtruth["weight"])
    if weights is None:
        weights = np.full(len(model_tics), 1.0 / len(model_tics))
        caveats.add("figures", "no weighting of the model could be estimated: the figures use raw counts")
    settings = {**section_defaults("metrics"), "seed": 0, **settings}
    bins = settings["bins"]
    max_points, seed = settings["scatter_max_points"], settings["seed"]
    iteration = np.asarray(model["iteration"]) if "iteration" in model else np.zeros(len(model_tics))
    if distributions is None:
        from westbench.metrics.suite import distributions as compute

        distributions = (compute(groundtruth), compute(model))
    raw = model["weight"] if "weight" in model else np.ones(len(model_tics))

    def contact_map():
        if values.get("contact_map_diff_A") is None:
            raise NotEstimable("the contact map of this weighting could not be estimated")
        contact_map_difference(values["contact_map_diff_A"], paths["contact_map_difference"], label)

    drawings = {
        "tic_densities_1d": lambda: tic_densities_1d(gt_tics, gt_weights, model_tics, weights,
                                                     paths["tic_densities_1d"], bins, settings["density"],
                                                     settings["kde_bandwidth"], label),
        "tic_densities_2d": lambda: tic_densities_2d(gt_tics, gt_weights, model_tics, weights,
                                                     paths["tic_densities_2d"], bins, label),
        "tic01_by_iteration": lambda: tic01_by_iteration(gt_tics, model_tics, iteration, paths["tic01_by_iteration"],
                                                         max_points, seed, label, runs=model.get("traj")),
        "structure_distributions": lambda: structure_distributions(distributions[0], distributions[1], gt_weights,
                                                                   weights, paths["structure_distributions"], bins,
                                                                   label),
        "msm_reweighting": lambda: msm_reweighting(model_tics, model["traj"], raw, paths["msm_reweighting"],
                                                   settings["msm_bins"], settings["msm_lag"], label),
        "contact_map_difference": contact_map,
        "macrostates": lambda: macrostate_scatter(gt_tics, labels["groundtruth"], model_tics, labels["model"],
                                                  paths["macrostates"], max_points, seed, label),
    }
    for name in FIGURES:
        draw_or_explain(paths[name], name, drawings[name], caveats)
    return paths


def engines_tic01(groundtruth_tics, groundtruth_weights, engines: Mapping, path, bins: int = 100,
                  levels=(1, 2, 3, 4, 5)) -> None:
    """One protein: every engine's TIC 0/1 free-energy contours over the ground truth's, side by side.

    ``engines`` maps an engine name to (tics, weights); one panel each, on shared axes.
    """
    names = list(engines) or ["(no engine)"]
    figure, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 3.8), dpi=110, squeeze=False,
                                sharex=True, sharey=True)
    everything = np.vstack([groundtruth_tics[:, :2], *[np.asarray(t)[:, :2] for t, _ in engines.values()]])
    edges = tuple(np.linspace(everything[:, d].min(), everything[:, d].max(), bins + 1) for d in range(2))
    centres = [0.5 * (e[1:] + e[:-1]) for e in edges]
    reference = free_energy(histogram2d(groundtruth_tics[:, :2], edges, groundtruth_weights))
    for name, ax in zip(names, axes[0]):
        mesh = ax.pcolormesh(edges[0], edges[1], np.ma.masked_invalid(reference.T), cmap="Greys_r", vmax=8,
                             shading="flat", rasterized=True)
        if name in engines:
            tics, weights = engines[name]
            model = free_energy(histogram2d(np.asarray(tics)[:, :2], edges, weights))
            if np.isfinite(model).sum() > 3:
                lines = ax.contour(centres[0], centres[1], np.nan_to_num(model.T, nan=np.nanmax(model) + 1),
                                   levels=levels, cmap="autumn", linewidths=0.9)
                ax.clabel(lines, fontsize=6, fmt="%d kT")
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("TIC 0")
    axes[0][0].set_ylabel("TIC 1")
    figure.colorbar(mesh, ax=axes[0].tolist(), label="ground truth free energy (kT)")
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
            ax.text(1.0, threshold, f" {round(100 * threshold)}%", transform=ax.get_yaxis_transform(), fontsize=7,
                    va="center", color="0.4")
        ax.set_xscale("log")
        ax.set_xlabel(label)
    axes[0].set_ylabel("coverage of the ground truth's TIC 0/1 cells")
    axes[0].set_ylim(0, 1.02)
    if costs:
        axes[0].legend(fontsize=8, loc="upper left")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
