"""The leaderboard's figures: rates and scores per agent and model, trial outcomes, cost versus success.

Each takes the tables of :mod:`westbench.agents.statistics` (the leaderboard and the trial grid) and writes a PNG;
an empty table gives a figure that says so.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from westbench.agents.statistics import OUTCOMES, outcome_counts
from westbench.presentation.figure_layout import fit_titles

OUTCOME_COLORS = {
    "passed": "#2ca02c",
    "failed": "#d62728",
    "agent_timeout": "#ff7f0e",
    "agent_error": "#9467bd",
    "environment_error": "#7f7f7f",
    "verifier_error": "#8c564b",
    "missing": "#c7c7c7",
}


def _labels(board: pd.DataFrame) -> list[str]:
    return [_label(a, m) for a, m in zip(board["agent"], board["model"])]


def _label(agent: str, model) -> str:
    """An agent and its model on two lines; the agent alone when it runs no model (the gate's agents: "none")."""
    return agent if model in (None, "", "none") or model != model else f"{agent}\n{model}"


def _empty_figure(path: str, text: str) -> None:
    import matplotlib.pyplot as plt

    fig, axis = plt.subplots(figsize=(6, 2))
    axis.text(0.5, 0.5, text, ha="center", va="center")
    axis.axis("off")
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_leaderboard(board: pd.DataFrame, grid: pd.DataFrame, path: str) -> None:
    """Figure: Pass Rate and Strict-Pass@1 (Wilson 95 %) and Avg. Score (bootstrap 95 %) per agent/model;
    score per task."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if board.empty or grid.empty:
        _empty_figure(path, "no task passed the oracle gate")
        return
    pivot = grid.pivot_table(index="task", columns=["agent", "model"], values="fc_score", aggfunc="mean")
    fig, axes = plt.subplots(
        1, 2, figsize=(12, max(4, 0.35 * len(pivot) + 1.5)), gridspec_kw={"width_ratios": [1, 1.4]}
    )
    x = np.arange(len(board))
    for offset, column, label in (
        (-0.27, "pass_rate", "Pass Rate (%)"),
        (0.0, "strict_pass_at_1", "Strict-Pass@1 (%)"),
        (0.27, "fc_avg_score", "FC Avg. Score"),
    ):
        scale = 1.0 if column == "fc_avg_score" else 100.0
        value = scale * board[column].astype(float)
        error = np.vstack(
            [value - scale * board[f"{column}_lo"].astype(float), scale * board[f"{column}_hi"].astype(float) - value]
        )
        axes[0].bar(x + offset, value.fillna(0), 0.27, yerr=np.nan_to_num(error), capsize=3, label=label)
    axes[0].set_xticks(x, _labels(board), rotation=35, ha="right", fontsize=8)
    axes[0].set_ylim(0, 105)
    axes[0].set_ylabel("% / score (95 % intervals)")
    axes[0].legend(fontsize=8)
    axes[0].set_title("Agents over gated tasks")
    image = axes[1].imshow(pivot.to_numpy(dtype=float), vmin=0, vmax=100, cmap="viridis", aspect="auto")
    axes[1].set_yticks(range(len(pivot)), pivot.index)
    axes[1].set_xticks(
        range(pivot.shape[1]), [_label(a, m) for a, m in pivot.columns], rotation=35, ha="right", fontsize=8
    )
    axes[1].set_title("FrontierChallenge score per task (mean over attempts)")
    fig.colorbar(image, ax=axes[1], label="score")
    fit_titles(fig)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_outcomes(grid: pd.DataFrame, path: str) -> None:
    """Stacked bars: trial outcomes (passed, failed, timeout, agent/environment/verifier error, missing)
    per agent and model."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if grid.empty:
        _empty_figure(path, "no trials")
        return
    counts = outcome_counts(grid)
    fig, axis = plt.subplots(figsize=(max(5, 1.2 * len(counts) + 2), 4))
    bottom = np.zeros(len(counts))
    labels = [_label(a, m) for a, m in counts.index]
    for outcome in OUTCOMES:
        values = counts[outcome].to_numpy(dtype=float)
        if values.any():
            axis.bar(labels, values, bottom=bottom, color=OUTCOME_COLORS[outcome], label=outcome.replace("_", " "))
            bottom += values
    axis.set_ylabel("trials")
    axis.tick_params(axis="x", labelrotation=35, labelsize=8)
    for label in axis.get_xticklabels():
        label.set_horizontalalignment("right")
    axis.set_title("Trial outcomes per agent and model")
    axis.legend(fontsize=8, bbox_to_anchor=(1.01, 1), loc="upper left")
    fit_titles(fig)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_cost_vs_success(board: pd.DataFrame, path: str) -> None:
    """Pass Rate (Wilson 95 %) against cost per task, one point per agent/model (cost 0 when not reported); a
    figure that says so when no agent reported a cost."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if board.empty:
        _empty_figure(path, "no agents")
        return
    if not (board["cost_usd_per_task"].astype(float).fillna(0.0) > 0).any():
        # every point would sit at 0 with its label on the others': say so instead of drawing it
        _empty_figure(path, "no agent reported a cost (agents without a model, such as the gate's, have none)")
        return
    fig, axis = plt.subplots(figsize=(6, 4))
    cost = board["cost_usd_per_task"].astype(float).fillna(0.0)
    rate = 100 * board["pass_rate"].astype(float)
    error = np.vstack(
        [rate - 100 * board["pass_rate_lo"].astype(float), 100 * board["pass_rate_hi"].astype(float) - rate]
    )
    axis.errorbar(cost, rate, yerr=np.nan_to_num(error), fmt="o", capsize=3)
    for label, x_value, y_value in zip(_labels(board), cost, rate):
        axis.annotate(
            label.replace("\n", " / "), (x_value, y_value), fontsize=7, xytext=(4, 4), textcoords="offset points"
        )
    axis.set_xlabel("cost per task (USD; 0 = not reported)")
    axis.set_ylabel("Pass Rate (%)")
    axis.set_ylim(-5, 105)
    axis.set_title("Cost versus success")
    fit_titles(fig)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
