"""The failure analysis's figures: process profiles and process against score; completion claims and tool errors
by outcome; breach signatures by category and difficulty. Each writes a PNG; an empty table gives a figure that
says so."""

from __future__ import annotations

import numpy as np
import pandas as pd

from westbench.agents.failures.breaches import SIGNATURES
from westbench.agents.figures import _empty_figure, _label
from westbench.agents.process.capabilities import CAPABILITIES
from westbench.presentation.figure_layout import fit_titles

SIGNATURE_COLORS = {
    "no verdict": "#7f7f7f",
    "missing deliverable": "#d62728",
    "failed check": "#ff7f0e",
    "agent timeout or error": "#9467bd",
    "judge shortfall": "#1f77b4",
    "none": "#c7c7c7",
}
OUTCOME_COLORS = {"passed": "#2ca02c", "not passed": "#d62728"}


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path) -> None:
    fit_titles(fig)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    _plt().close(fig)


def _errors(values, low, high) -> np.ndarray:
    values, low, high = (np.asarray(v, dtype=float) for v in (values, low, high))
    return np.nan_to_num(np.vstack([values - low, high - values]).clip(min=0))


def plot_process(summary: pd.DataFrame, process: pd.DataFrame, correlation: pd.DataFrame, path) -> None:
    """Left: each agent's capability profile and process (95 % intervals); right: process against task score per
    judged trial, with the overall Spearman rho and its interval."""
    plt = _plt()
    judged = process[pd.to_numeric(process.get("process"), errors="coerce").notna()] if len(process) else process
    if summary.empty or judged.empty:
        _empty_figure(path, "no trial's process was judged (no judge endpoint, or no agent under test)")
        return
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8), gridspec_kw={"width_ratios": [1.5, 1]})
    measures = [*CAPABILITIES, "process", "process_coverage_adjusted"]
    runs = list(dict.fromkeys(zip(summary["agent"], summary["model"])))
    width = 0.8 / max(len(runs), 1)
    x = np.arange(len(measures))
    for k, (agent, model) in enumerate(runs):
        rows = summary[(summary["agent"] == agent) & (summary["model"] == model)].set_index("measure")
        rows = rows.reindex(measures)
        axes[0].bar(
            x - 0.4 + width * (k + 0.5),
            rows["estimate"].fillna(0),
            width,
            yerr=_errors(rows["estimate"], rows["lo"], rows["hi"]),
            capsize=2,
            label=_label(agent, model).replace("\n", " / "),
        )
    names = [m.replace("_", " ") for m in CAPABILITIES] + ["process", "coverage-adjusted"]
    axes[0].set_xticks(x, names, rotation=30, ha="right", fontsize=8)
    axes[0].set_ylim(0, 1.05)
    axes[0].set_ylabel("score (0-1; 95 % intervals)")
    axes[0].set_title("Process per capability (trials with an opportunity)")
    axes[0].legend(fontsize=7)
    for agent, model in runs:
        rows = judged[(judged["agent"] == agent) & (judged["model"] == model)]
        axes[1].scatter(rows["process"], rows["task_score"], alpha=0.7, label=_label(agent, model).replace("\n", " / "))
    overall = correlation[correlation["scope"] == "overall"].iloc[0] if len(correlation) else None
    if overall is not None and np.isfinite(overall["spearman"]):
        text = f"Spearman {overall['spearman']:.2f} [{overall['lo']:.2f}, {overall['hi']:.2f}], n={overall['trials']}"
    else:
        text = f"Spearman undefined: {overall['note'] if overall is not None else 'no trials'}"
    axes[1].set_xlim(-0.05, 1.05)
    axes[1].set_ylim(-0.05, 1.05)
    axes[1].set_xlabel("process (judged)")
    axes[1].set_ylabel("task score (correctness; 0 if not finished)")
    axes[1].set_title(f"Process against task score: {text}", fontsize=9)
    if len(runs) > 1:
        axes[1].legend(fontsize=7)
    _save(fig, path)


def plot_failures(completion: pd.DataFrame, tool_errors: pd.DataFrame, path) -> None:
    """Left: completion-claim rate of the final message by outcome; right: tool errors per 100 tool results by
    outcome; per agent and model, Wilson 95 % intervals."""
    plt = _plt()
    if completion.empty and tool_errors.empty:
        _empty_figure(path, "no trial left a trajectory (agent/trajectory.json)")
        return
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for axis, table, column, scale, title in (
        (axes[0], completion, "claim_rate", 100.0, "Final message claims completion (%)"),
        (axes[1], tool_errors, "errors_per_100_results", 1.0, "Tool errors per 100 tool results"),
    ):
        if table.empty:
            axis.text(0.5, 0.5, "no trajectory", ha="center", va="center")
            axis.axis("off")
            continue
        runs = list(dict.fromkeys(zip(table["agent"], table["model"])))
        x = np.arange(len(runs))
        for k, name in enumerate(("passed", "not passed")):
            rows = table[table["outcome"] == name].set_index(["agent", "model"]).reindex(runs)
            values = scale * rows[column].astype(float)
            axis.bar(
                x - 0.2 + 0.4 * k,
                values.fillna(0),
                0.4,
                yerr=_errors(
                    values, scale * rows[f"{column}_lo"].astype(float), scale * rows[f"{column}_hi"].astype(float)
                ),
                capsize=3,
                color=OUTCOME_COLORS[name],
                label=name,
            )
        axis.set_xticks(x, [_label(a, m) for a, m in runs], rotation=30, ha="right", fontsize=8)
        axis.set_title(title)
        axis.legend(fontsize=8)
    axes[0].set_ylim(0, 105)
    _save(fig, path)


def plot_breaches(breaches: pd.DataFrame, path) -> None:
    """Stacked bars: the signature of every trial not passed, per category and per difficulty (all agents)."""
    plt = _plt()
    failed = breaches[breaches["not_passed"] > 0] if len(breaches) else breaches
    if failed.empty:
        _empty_figure(path, "no trial failed: no breach to show")
        return
    tags = [tag for tag in ("category", "difficulty") if tag in set(failed["tag"])]
    fig, axes = plt.subplots(1, len(tags), figsize=(6.5 * len(tags), 4.8), squeeze=False)
    for axis, tag in zip(axes[0], tags):
        counts = (
            failed[failed["tag"] == tag]
            .groupby("value")[[f"signature_{name.replace(' ', '_')}" for name in SIGNATURES]]
            .sum()
        )
        bottom = np.zeros(len(counts))
        for name in SIGNATURES:
            values = counts[f"signature_{name.replace(' ', '_')}"].to_numpy(dtype=float)
            if values.any():
                axis.bar(counts.index, values, bottom=bottom, color=SIGNATURE_COLORS[name], label=name)
                bottom += values
        axis.tick_params(axis="x", labelrotation=35, labelsize=8)
        for label in axis.get_xticklabels():
            label.set_horizontalalignment("right")
        from matplotlib.ticker import MaxNLocator

        axis.yaxis.set_major_locator(MaxNLocator(integer=True))
        axis.set_ylim(0, 1.3 * max(bottom.max(), 1))  # room for the legend above the bars
        axis.set_ylabel("trials not passed")
        axis.set_title(f"Breach signature by {tag}")
        axis.legend(fontsize=7, loc="upper right")
    _save(fig, path)
