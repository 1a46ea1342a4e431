"""A model-driven Harbor agent (Terminus-2) and the judge, through the rules, against a local endpoint.

No provider is reachable here, so a local OpenAI-compatible server plays the model
(tests/containers/fake_openai.py). Everything else is real: Harbor's Terminus-2 drives a tmux
session in the task container, LiteLLM talks to the endpoint and prices the tokens, the verifier
grades in its own container, the judge scores the rubric and the process scorecard, the leaderboard
reports Strict-Pass@1, tokens and cost, and the failure analysis reads Terminus-2's own trajectory
(agent/trajectory.json). This is also how a cluster runs the suite against a model it serves itself
(vLLM and the like speak the same API).
"""

import json
import os

import pandas as pd
import pytest

from .fake_openai import FakeOpenAI
from .test_agents_pipeline import agents_machine, run_agents, trials  # noqa: F401 (session fixture)

pytestmark = [pytest.mark.container, pytest.mark.slow, pytest.mark.workflow]

TASK = {
    "task.toml": 'schema_version = "1.4"\nartifacts = ["/app/output"]\n\n[metadata]\ndifficulty = "easy"\n'
    'category = "smoke"\n\n[verifier]\nenvironment_mode = "separate"\ntimeout_sec = 60\n\n[agent]\n'
    "timeout_sec = 300\n\n[environment]\nbuild_timeout_sec = 300\ncpus = 1\nmemory_mb = 1024\n",
    "instruction.md": "Write the words hello world into /app/output/hello.txt.\n",
    "environment/Dockerfile": "FROM westbench/md-base:bookworm-1\nWORKDIR /app\n",
    "solution/solve.sh": "#!/bin/bash\nmkdir -p /app/output\necho 'hello world' > /app/output/hello.txt\n",
    "tests/test.sh": "#!/bin/bash\n"
    "if grep -q 'hello world' /app/output/hello.txt 2>/dev/null; then v=1.0; else v=0.0; fi\n"
    "printf '{\"correctness\": %s}\\n' $v > /logs/verifier/reward.json\n",
    "rubric.toml": 'files = ["hello.txt"]\n\n[[criteria]]\nid = "direct"\ntype = "binary"\n'
    'question = "Did the agent write the file directly, without detours?"\n',
    "process.toml": '[opportunities]\nevidence_fidelity = "it says what it wrote"\ntool_state = "it writes a file"\n\n'
    '[[items]]\nid = "file-checked"\ncapability = "tool_state"\nquestion = "Did it check the file it wrote?"\n'
    'anchors = ["no", "partly", "yes, with its content shown"]\n',
}
AGENT_KEY, JUDGE_KEY = "sk-agent-fake-key-7731", "sk-judge-fake-key-4410"


@pytest.fixture(scope="module")
def model_run(agents_machine, tmp_path_factory):  # noqa: F811
    root = tmp_path_factory.mktemp("model-agent")
    for relative, text in TASK.items():
        (root / "tasks" / "hello-model" / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / "tasks" / "hello-model" / relative).write_text(text)
    workdir = root / "run"
    workdir.mkdir()
    with FakeOpenAI(["mkdir -p /app/output && echo 'hello world' > /app/output/hello.txt\n"], "judge-fake") as fake:
        section = {
            "tasks_dir": str(root / "tasks"),
            "agents": [
                {"name": "oracle"},
                {"name": "nop"},
                {
                    "name": "terminus-2",
                    "models": ["openai/gpt-4o-mini"],
                    "kwargs": {"api_base": fake.url, "max_turns": "6"},
                },
            ],
        }
        env = {
            **os.environ,
            "OPENAI_API_KEY": AGENT_KEY,
            "WESTBENCH_JUDGE_MODEL": "judge-fake",
            "WESTBENCH_JUDGE_BASE_URL": fake.url,
            "WESTBENCH_JUDGE_API_KEY": JUDGE_KEY,
        }
        result = run_agents(workdir, section, env=env)
    assert result.returncode == 0, result.output[-4000:]
    return workdir, fake.requests


def test_the_model_agent_solves_the_task_and_its_tokens_are_priced(model_run):
    workdir, requests = model_run
    record = trials(workdir)[("hello-model", "terminus-2")]
    assert record["status"] == "passed" and record["correctness"] == 1.0, record
    assert record["model"] == "openai--gpt-4o-mini"
    assert record["tokens_in"] > 0 and record["tokens_out"] > 0 and record["cost_usd"] > 0, record
    agent_requests = [r for r in requests if r.get("model") != "judge-fake"]
    assert len(agent_requests) >= 2  # the commands, then the completion Terminus asks to confirm


def test_the_judge_scores_the_process_and_strict_pass_counts_it(model_run):
    workdir, requests = model_run
    judge = json.loads(
        next(
            (workdir / "results" / "agents" / "trials" / "hello-model" / "terminus-2").glob("*/*/judge.json")
        ).read_text()
    )
    assert judge["judged"] is True and judge["process"] == 1.0, judge
    assert len([r for r in requests if r.get("model") == "judge-fake"]) >= 3 * 3  # 3 trials x 1 criterion x 3 repeats
    board = pd.read_csv(workdir / "results" / "agents" / "leaderboard.csv").set_index("agent")
    row = board.loc["terminus-2"]
    assert row["strict_pass_at_1"] == 1.0 and row["mean_process"] == 1.0 and row["judged_share"] == 1.0
    assert row["tokens_in"] > 0 and row["cost_usd"] > 0
    assert board.loc["nop", "strict_pass_at_1"] == 0.0


def test_the_process_scorecard_and_the_failure_analysis_read_terminus_2s_trajectory(model_run):
    """Three items (two shared, one the task's) of two covered capabilities, each judged 3 times at the stand-in's
    anchor 1 (0.5); the gate's agents get no scorecard; the failure analysis reads Harbor's ATIF trajectory."""
    workdir, requests = model_run
    trials_dir = workdir / "results" / "agents" / "trials" / "hello-model"
    card = json.loads(next((trials_dir / "terminus-2").glob("*/*/process.json")).read_text())
    assert card["judged"] and card["covered"] == ["evidence_fidelity", "tool_state"], card
    assert card["coverage"] == round(2 / 6, 6) and card["process"] == 0.5 and len(card["items"]) == 3
    assert all(item["raw_values"] == [1.0, 1.0, 1.0] for item in card["items"])
    facts = card["facts"]
    assert facts["trajectory"] == "read" and facts["tool_results"] >= 1 and facts["completion_call"] is True, facts
    assert not list(trials_dir.glob("oracle/*/*/process.json")) and not list(trials_dir.glob("nop/*/*/process.json"))
    failures = pd.read_csv(workdir / "results" / "agents" / "failures.csv").set_index("agent")
    assert failures.loc["terminus-2", "outcome"] == "passed" and failures.loc["terminus-2", "signature"] == "none"
    assert failures.loc["terminus-2", "trajectory"] == "read" and failures.loc["oracle", "trajectory"] == "absent"
    assert failures.loc["nop", "outcome"] == "not passed" and failures.loc["nop", "signature"] == "failed check"
    tools = pd.read_csv(workdir / "results" / "agents" / "tool_errors.csv").set_index("agent")
    assert tools.loc["terminus-2", "tool_results"] == facts["tool_results"]
    html = (workdir / "results" / "report" / "agents.html").read_text()
    assert '<h2 id="process">' in html and "1 of 1 scorecards judged" in html and '<h2 id="failures">' in html


def test_no_key_is_written_anywhere(model_run):
    workdir, _ = model_run
    for path in (workdir / "results").rglob("*"):
        if path.is_file() and path.stat().st_size < 5_000_000:
            text = path.read_bytes()
            assert AGENT_KEY.encode() not in text and JUDGE_KEY.encode() not in text, path
