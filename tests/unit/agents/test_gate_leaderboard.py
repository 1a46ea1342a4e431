"""Oracle gate, fixed denominators, pass@k and breakdowns."""

import json

import numpy as np
import pandas as pd
import pytest

from westbench.agents.gate import oracle_gate
from westbench.agents.leaderboard import PASS_SCORE, complete_grid, leaderboard, pass_at_k, plot_leaderboard, trial_score


def trial(task, agent, correctness, status=None, attempt=1, model="none", process=None, criteria=None, **extra):
    return {"task": task, "agent": agent, "model": model, "attempt": attempt, "correctness": correctness,
            "status": status or ("passed" if correctness == 1 else "failed"), "process": process,
            "all_criteria_passed": criteria, **extra}


def test_gate_reports_every_way_a_task_can_fail():
    records = [trial("ok", "oracle", 1.0), trial("ok", "nop", 0.0), trial("weak", "oracle", 0.5), trial("weak", "nop", 0.0),
               trial("leaky", "oracle", 1.0), trial("leaky", "nop", 0.25),
               trial("broken", "oracle", 0.0, "environment_error", reason="FROM image missing"),
               trial("broken", "nop", 0.0, "environment_error", reason="FROM image missing")]
    table = oracle_gate(records, ["ok", "weak", "leaky", "broken", "absent"]).set_index("task")
    assert table["passed"].to_dict() == {"ok": True, "weak": False, "leaky": False, "broken": False, "absent": False}
    assert "scored 0.5" in table.loc["weak", "reason"] and "nop) scored 0.25" in table.loc["leaky", "reason"]
    assert "FROM image missing" in table.loc["broken", "reason"] and "no oracle trial" in table.loc["absent", "reason"]


def test_pass_at_k_matches_its_definition():
    assert pass_at_k(5, 0, 3) == 0.0 and pass_at_k(5, 5, 1) == 1.0
    assert pass_at_k(4, 2, 2) == pytest.approx(1 - 1 / 6)
    with pytest.raises(ValueError):
        pass_at_k(2, 1, 3)


def test_scores_and_strict_pass():
    assert trial_score(1.0, None) == 100.0 and trial_score(1.0, 0.5) == 75.0 and trial_score(0.2, np.nan) == pytest.approx(20.0)


def test_missing_trials_count_as_failures_in_fixed_denominators():
    trials = pd.DataFrame([trial("a", "x", 1.0, attempt=1), trial("a", "x", 0.0, attempt=2), trial("b", "x", 1.0, attempt=1),
                           trial("a", "y", 1.0, attempt=1)])
    grid = complete_grid(trials, ["a", "b"], [("x", "none"), ("y", "none")], attempts=2,
                         task_info={"a": {"difficulty": "easy", "category": "c1"}, "b": {"difficulty": "hard", "category": "c2"}})
    assert len(grid) == 8 and (grid["status"] == "missing").sum() == 4
    board = leaderboard(grid, attempts=2, ks=(1, 2)).set_index("agent")
    assert board.loc["x", "pass_rate"] == pytest.approx(2 / 4) and board.loc["y", "pass_rate"] == pytest.approx(1 / 4)
    assert board.loc["x", "avg_score"] == pytest.approx(50.0) and board.loc["x", "n_missing"] == 1
    assert board.loc["x", "pass_at_1"] == pytest.approx((0.5 + 0.5) / 2) and board.loc["x", "pass_at_2"] == pytest.approx(1.0)
    assert np.isnan(board.loc["x", "strict_pass_at_1"])  # not judged: undecided, never passed
    by = leaderboard(grid, attempts=2, ks=(1,), by=["difficulty"])
    assert set(zip(by["agent"], by["difficulty"])) == {("x", "easy"), ("x", "hard"), ("y", "easy"), ("y", "hard")}
    assert by.set_index(["agent", "difficulty"]).loc[("y", "hard"), "avg_score"] == 0.0


def test_judged_process_enters_score_and_strict_pass():
    trials = pd.DataFrame([trial("a", "x", 1.0, process=1.0, criteria=True), trial("b", "x", 1.0, process=0.5, criteria=False)])
    grid = complete_grid(trials, ["a", "b"], [("x", "none")], attempts=1)
    board = leaderboard(grid, attempts=1)
    assert board.loc[0, "strict_pass_at_1"] == 0.5 and board.loc[0, "mean_process"] == 0.75
    assert board.loc[0, "pass_rate"] == 0.5 and grid["score"].tolist() == [100.0, 75.0] and PASS_SCORE == 99.9


def test_figure_is_written(tmp_path):
    grid = complete_grid(pd.DataFrame([trial("a", "x", 1.0)]), ["a"], [("x", "none")], attempts=1)
    plot_leaderboard(leaderboard(grid, attempts=1), grid, str(tmp_path / "board.png"))
    plot_leaderboard(leaderboard(grid.iloc[0:0], attempts=1), grid.iloc[0:0], str(tmp_path / "empty.png"))
    assert (tmp_path / "board.png").stat().st_size > 1000 and (tmp_path / "empty.png").stat().st_size > 100


def test_judged_trials_join_on_the_agents_model_not_the_judges(tmp_path):
    from westbench.agents.judge import JudgeSettings, judge_trial
    from westbench.agents.leaderboard import read_trials

    settings = JudgeSettings.from_env({"WESTBENCH_JUDGE_MODEL": "judge-1", "WESTBENCH_JUDGE_BASE_URL": "http://unused",
                                       "WESTBENCH_JUDGE_API_KEY": "k"}, repeats=2)
    rubric = {"files": [], "criteria": [{"id": "c", "type": "binary", "question": "?"}]}
    result = judge_trial(rubric, "", "trajectory", {}, settings, None, call=lambda *_: '{"value": 1}')
    key = {"task": "t", "agent": "a", "model": "openai--m", "attempt": 1}
    (tmp_path / "trial.json").write_text(json.dumps({**key, "status": "passed", "correctness": 1.0}))
    (tmp_path / "judge.json").write_text(json.dumps({**key, **result}))  # what scripts/agent_judge.py writes
    rows = read_trials([tmp_path / "trial.json"], [tmp_path / "judge.json"])
    assert result["judge_model"] == "judge-1"
    assert rows.loc[0, "process"] == 1.0 and bool(rows.loc[0, "all_criteria_passed"]) and bool(rows.loc[0, "judged"])
