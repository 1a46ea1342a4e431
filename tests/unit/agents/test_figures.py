"""The leaderboard's figures are written, for a full grid and an empty one."""

import pandas as pd

from westbench.agents.figures import plot_cost_vs_success, plot_leaderboard, plot_outcomes
from westbench.agents.statistics import complete_grid, leaderboard, outcome_counts

from .trial_records import trial


def test_figures_are_written(tmp_path):
    trials = pd.DataFrame(
        [trial("a", "x", 1.0), trial("b", "x", 0.3, "agent_timeout"), trial("a", "y", 0.0, "agent_error")]
    )
    grid = complete_grid(trials, ["a", "b"], [("x", "none"), ("y", "none")], attempts=1)
    board = leaderboard(grid, attempts=1)
    counts = outcome_counts(grid)
    assert counts.loc[("x", "none"), "agent_timeout"] == 1 and counts.loc[("y", "none"), "missing"] == 1
    plot_leaderboard(board, grid, str(tmp_path / "board.png"))
    plot_outcomes(grid, str(tmp_path / "outcomes.png"))
    plot_cost_vs_success(board, str(tmp_path / "cost.png"))
    plot_leaderboard(leaderboard(grid.iloc[0:0], attempts=1), grid.iloc[0:0], str(tmp_path / "empty.png"))
    for name in ("board", "outcomes", "cost", "empty"):
        assert (tmp_path / f"{name}.png").stat().st_size > 100, name
