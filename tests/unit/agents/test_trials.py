"""Reading the trial records: a trial.json joined with its judge.json."""

import json


def test_judged_trials_join_on_the_agents_model_not_the_judges(tmp_path):
    from westbench.agents.judge import JudgeSettings, judge_trial
    from westbench.agents.trials import read_trials

    settings = JudgeSettings.from_env(
        {
            "WESTBENCH_JUDGE_MODEL": "judge-1",
            "WESTBENCH_JUDGE_BASE_URL": "http://unused",
            "WESTBENCH_JUDGE_API_KEY": "k",
        },
        repeats=2,
    )
    rubric = {"files": [], "criteria": [{"id": "c", "type": "binary", "question": "?"}]}
    result = judge_trial(rubric, "", "trajectory", {}, settings, None, call=lambda *_: '{"value": 1}')
    key = {"task": "t", "agent": "a", "model": "openai--m", "attempt": 1}
    (tmp_path / "trial.json").write_text(json.dumps({**key, "status": "passed", "correctness": 1.0}))
    (tmp_path / "judge.json").write_text(json.dumps({**key, **result}))  # what scripts/agent_judge.py writes
    rows = read_trials([tmp_path / "trial.json"], [tmp_path / "judge.json"])
    assert result["judge_model"] == "judge-1"
    assert rows.loc[0, "process"] == 1.0 and bool(rows.loc[0, "all_criteria_passed"]) and bool(rows.loc[0, "judged"])
