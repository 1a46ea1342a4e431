"""The agent page's sections about the agents, each from small synthetic results (example_files) changed one thing
at a time: what each says follows from the leaderboard it is given."""

import math

import numpy as np
import pandas as pd
import pytest

from westbench.report.agents_page import AgentResults, example_files
from westbench.report.agents_sections import (
    NO_LEADERBOARD,
    breakdown_section,
    cost_section,
    leaderboard_section,
    outcomes_section,
    summary_section,
)


@pytest.fixture
def results(tmp_path):
    return AgentResults.read(example_files(tmp_path / "agents", failures=False), tmp_path / "report")


def wilson_width(successes, n, z=1.959963984540054):
    p = successes / n
    return 2 * z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)


@pytest.mark.parametrize("section", [summary_section, leaderboard_section, cost_section, outcomes_section])
def test_without_a_leaderboard_every_agent_section_says_so(results, section):
    results.leaderboard = results.leaderboard.iloc[0:0]
    assert section(results) == NO_LEADERBOARD


@pytest.mark.parametrize("trials", [2, 10, 40])
def test_the_bottom_line_says_what_limits_it_with_wilson_widths(results, trials):
    results.leaderboard["trials"] = trials
    text = str(summary_section(results))
    now, more = wilson_width(trials // 2, trials), wilson_width(2 * trials, 4 * trials)
    assert f"What limits this: {trials} trials per agent" in text
    assert f"an interval {100 * now:.0f} points wide" in text and f"about {100 * more:.0f}." in text
    assert f"{int(results.gate['passed'].sum())} of {len(results.gate)} tasks passed the oracle gate" in text


@pytest.mark.parametrize(
    "low, high, expected",
    [(0.45, 0.9, "above nop; not told apart from oracle"), (0.1, 0.5, "below oracle; not told apart from nop")],
)
def test_the_agent_under_test_stands_against_the_gate_agents_by_its_interval(results, low, high, expected):
    board = results.leaderboard
    board.loc[board["agent"] == "model-agent", ["pass_rate_lo", "pass_rate_hi"]] = [low, high]
    text = str(summary_section(results))
    assert "model-agent / openai-gpt is the only agent under test" in text
    assert all(part in text for part in expected.split("; "))


def test_only_the_gate_agents_rank_nothing(results):
    results.leaderboard = results.leaderboard[results.leaderboard["agent"] != "model-agent"].reset_index(drop=True)
    text = str(summary_section(results))
    assert "<b>Only the gate" in text and "own agents ran</b> (oracle must solve every task and nop none)" in text


def test_two_agents_under_test_with_disjoint_intervals_rank(results):
    board = results.leaderboard
    second = board[board["agent"] == "model-agent"].assign(
        agent="other", model="m2", pass_rate=0.05, pass_rate_lo=0.0, pass_rate_hi=0.08
    )
    results.leaderboard = pd.concat([board, second], ignore_index=True)
    results.leaderboard.loc[2, ["pass_rate_lo", "pass_rate_hi"]] = [0.3, 0.9]
    assert "<b>model-agent / openai-gpt ranks first</b>" in str(summary_section(results))


def test_the_leaderboard_marks_the_gate_agents_and_shows_every_run(results):
    html = str(leaderboard_section(results))
    assert "oracle (gate reference)" in html and "nop (gate null)" in html and "model-agent / openai-gpt" in html
    assert html.count("<tr") == len(results.leaderboard) + 1  # a header and a row per agent and model


def test_cost_is_reported_where_an_agent_has_one(results):
    html = str(cost_section(results))
    assert "0.020" in html and html.count("not reported") == 2 and "No agent reported a cost" not in html
    results.leaderboard["cost_usd_per_task"] = np.nan
    assert "No agent reported a cost" in str(cost_section(results))


def test_outcomes_leave_out_the_statuses_no_trial_had(results):
    results.leaderboard["n_timeout"] = 0
    results.leaderboard["n_error"] = [0, 0, 1]
    html = str(outcomes_section(results))
    assert "<th>passed</th>" in html and "<th>error</th>" in html and "<th>timeout</th>" not in html


def test_the_breakdown_has_a_table_per_tag_or_says_why_not(results):
    html = str(breakdown_section(results))
    assert "<h3>difficulty</h3>" in html and "<h3>category</h3>" in html
    results.by_tag = None
    assert "No breakdown by tag" in str(breakdown_section(results))
    results.by_tag = pd.DataFrame({"tag": ["size"], "value": ["big"], "agent": ["a"], "model": ["m"]})
    assert "neither a difficulty nor a category" in str(breakdown_section(results))
