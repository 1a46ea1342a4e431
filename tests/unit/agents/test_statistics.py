"""The leaderboard's statistics: fixed denominators, pass@k, intervals, Strict-Pass, FrontierChallenge scores."""

import json

import numpy as np
import pandas as pd
import pytest

from westbench.agents.statistics import (
    PASS_SCORE,
    bootstrap_interval,
    complete_grid,
    fc_score,
    leaderboard,
    pass_at_k,
    wilson_interval,
)

from .trial_records import trial


def test_pass_at_k_matches_its_definition():
    assert pass_at_k(5, 0, 3) == 0.0 and pass_at_k(5, 5, 1) == 1.0
    assert pass_at_k(4, 2, 2) == pytest.approx(1 - 1 / 6)
    with pytest.raises(ValueError):
        pass_at_k(2, 1, 3)


def test_frontierchallenge_score():
    assert fc_score("passed", 1.0, None) == 100.0 and fc_score("failed", 1.0, 0.5) == 75.0
    assert fc_score("failed", 0.2, np.nan) == pytest.approx(20.0) and fc_score("agent_timeout", 1.0, 1.0) == 0.0


def test_missing_trials_count_as_failures_in_fixed_denominators():
    trials = pd.DataFrame(
        [
            trial("a", "x", 1.0, attempt=1),
            trial("a", "x", 0.0, attempt=2),
            trial("b", "x", 1.0, attempt=1),
            trial("a", "y", 1.0, attempt=1),
        ]
    )
    grid = complete_grid(
        trials,
        ["a", "b"],
        [("x", "none"), ("y", "none")],
        attempts=2,
        task_info={"a": {"difficulty": "easy", "category": "c1"}, "b": {"difficulty": "hard", "category": "c2"}},
    )
    assert len(grid) == 8 and (grid["status"] == "missing").sum() == 4
    board = leaderboard(grid, attempts=2, ks=(1, 2)).set_index("agent")
    assert board.loc["x", "pass_rate"] == pytest.approx(2 / 4) and board.loc["y", "pass_rate"] == pytest.approx(1 / 4)
    assert board.loc["x", "fc_avg_score"] == pytest.approx(50.0) and board.loc["x", "n_missing"] == 1
    assert board.loc["x", "pass_at_1"] == pytest.approx((0.5 + 0.5) / 2) and board.loc[
        "x", "pass_at_2"
    ] == pytest.approx(1.0)
    assert np.isnan(board.loc["x", "strict_pass_at_1"])  # not judged: undecided, never passed
    by = leaderboard(grid, attempts=2, ks=(1,), by=["difficulty"])
    assert set(zip(by["agent"], by["difficulty"])) == {("x", "easy"), ("x", "hard"), ("y", "easy"), ("y", "hard")}
    assert by.set_index(["agent", "difficulty"]).loc[("y", "hard"), "fc_avg_score"] == 0.0


def test_a_timed_out_or_crashed_agent_fails_whatever_its_verifier_scored():
    trials = pd.DataFrame(
        [
            trial("a", "x", 1.0, "agent_timeout", process=1.0, criteria=True),
            trial("b", "x", 1.0, "agent_error", process=1.0, criteria=True),
            trial("c", "x", 1.0, "passed", process=1.0, criteria=True),
        ]
    )
    grid = complete_grid(trials, ["a", "b", "c"], [("x", "none")], attempts=1).set_index("task")
    assert grid["checks_pass"].tolist() == [False, False, True] and grid["strict_pass"].tolist() == [0.0, 0.0, 1.0]
    assert grid["correctness"].tolist() == [1.0, 1.0, 1.0]  # the verifier's score kept as partial credit
    assert grid["fc_score"].tolist() == [0.0, 0.0, 100.0]
    board = leaderboard(grid.reset_index(), attempts=1, ks=(1,))
    assert board.loc[0, "pass_rate"] == pytest.approx(1 / 3) and board.loc[0, "pass_at_1"] == pytest.approx(1 / 3)
    assert board.loc[0, "strict_pass_at_1"] == pytest.approx(1 / 3) and board.loc[0, "fc_pass_rate"] == pytest.approx(
        1 / 3
    )
    assert board.loc[0, "mean_correctness"] == 1.0 and board.loc[0, "n_agent_timeout"] == 1


def test_strict_pass_needs_every_check_and_every_criterion_and_is_undefined_unjudged():
    trials = pd.DataFrame(
        [
            trial("a", "x", 1.0, process=1.0, criteria=True),
            trial("b", "x", 1.0, process=0.5, criteria=False),
            trial("c", "x", 0.5, process=1.0, criteria=True),
            trial("d", "x", 1.0),
        ]
    )
    grid = complete_grid(trials, ["a", "b", "c", "d"], [("x", "none")], attempts=1).set_index("task")
    assert grid["strict_pass"].tolist()[:3] == [1.0, 0.0, 0.0] and np.isnan(grid.loc["d", "strict_pass"])
    assert grid["judgement"].tolist() == ["judged", "judged", "judged", "not judged"]
    assert np.isnan(leaderboard(grid.reset_index(), attempts=1).loc[0, "strict_pass_at_1"])
    judged = complete_grid(trials.iloc[:3], ["a", "b", "c"], [("x", "none")], attempts=1)
    board = leaderboard(judged, attempts=1)
    assert board.loc[0, "strict_pass_at_1"] == pytest.approx(1 / 3) and board.loc[0, "mean_process"] == pytest.approx(
        2.5 / 3
    )
    assert board.loc[0, "pass_rate"] == pytest.approx(2 / 3) and PASS_SCORE == 99.9


def test_interval_functions_against_known_values():
    # Wilson score interval: 7 of 10 -> (0.3968, 0.8922); 0 of 10 -> (0, 0.2775) (Newcombe 1998, method 3).
    assert wilson_interval(7, 10) == pytest.approx((0.39678, 0.89221), abs=1e-4)
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.27753), abs=1e-4)
    assert wilson_interval(10, 10)[1] == pytest.approx(1.0) and np.isnan(wilson_interval(0, 0)[0])
    values = np.random.default_rng(3).normal(50.0, 10.0, size=400)
    low, high = bootstrap_interval(values, seed=7)
    half = 1.96 * values.std(ddof=1) / np.sqrt(len(values))  # the normal-theory interval it must approach
    assert low == pytest.approx(values.mean() - half, abs=0.3) and high == pytest.approx(values.mean() + half, abs=0.3)
    assert bootstrap_interval(values, seed=7) == (low, high) and bootstrap_interval(values, seed=8) != (low, high)
    assert bootstrap_interval([1.0, 1.0], seed=1) == (1.0, 1.0) and np.isnan(bootstrap_interval([], seed=1)[0])


def test_leaderboard_carries_intervals_costs_and_wall_times():
    trials = pd.DataFrame(
        [
            trial("a", "x", 1.0, cost_usd=0.5, tokens_in=100, wall_s=10.0),
            trial("b", "x", 0.0, cost_usd=1.5, tokens_in=300, wall_s=30.0),
        ]
    )
    board = leaderboard(complete_grid(trials, ["a", "b"], [("x", "none")], attempts=1), attempts=1, seed=5)
    row = board.loc[0]
    assert (row["pass_rate_lo"], row["pass_rate_hi"]) == pytest.approx(wilson_interval(1, 2))
    assert row["fc_avg_score_lo"] <= row["fc_avg_score"] <= row["fc_avg_score_hi"] and row["bootstrap_seed"] == 5
    assert row["cost_usd"] == 2.0 and row["cost_usd_per_task"] == 1.0 and row["tokens_in_per_task"] == 200
    assert row["wall_s_mean"] == 20.0 and row["wall_s_max"] == 30.0


def test_the_leaderboard_shows_the_fraction_of_all_checks_beside_science_correctness(tmp_path):
    """Invented numbers in the right format: correctness 0 (science), the plain fraction of checks 0.5 beside it."""
    from westbench.agents.trials import read_trials

    for name, rewards in (
        ("made-up", {"correctness": 0.0, "checks_fraction": 0.5}),
        ("right", {"correctness": 1.0, "checks_fraction": 1.0}),
    ):
        (tmp_path / f"{name}.json").write_text(
            json.dumps(
                {
                    "task": name,
                    "agent": "x",
                    "model": "none",
                    "attempt": 1,
                    "status": "failed" if name == "made-up" else "passed",
                    "correctness": rewards["correctness"],
                    "rewards": rewards,
                }
            )
        )
    trials = read_trials([tmp_path / "made-up.json", tmp_path / "right.json"], [])
    board = leaderboard(complete_grid(trials, ["made-up", "right", "absent"], [("x", "none")], attempts=1), attempts=1)
    row = board.loc[0]
    assert row["mean_correctness"] == pytest.approx(1 / 3) and row["mean_checks_fraction"] == pytest.approx(0.5)
    assert row["fc_avg_score"] == pytest.approx(100 / 3)  # FrontierChallenge's score from correctness: 0 for made-up
