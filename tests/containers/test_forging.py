"""Forging agents against a separate-mode task and a Harbor default-format (shared-mode) task, for real.

Fixture tasks (tests/containers/fixtures/forge-tasks): ``answer-separate`` declares
``environment_mode = "separate"`` and its deliverables; ``answer-shared`` is written as elsewhere in
Harbor's default format (no verifier mode, no artifacts, answers in /app and /root, reward.txt). One
forging agent per attack (harbor_plugins/westbench_forger.py) runs on each through the Snakemake
rules, beside the oracle and the do-nothing agent: every attack must score 0 with status ``failed``,
the oracle 1 on both tasks.
"""

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from .test_agents_pipeline import agents_machine, run_agents, trials  # noqa: F401 (session fixture)

pytestmark = [pytest.mark.container, pytest.mark.slow, pytest.mark.workflow]

FIXTURES = Path(__file__).parent / "fixtures" / "forge-tasks"
ATTACKS = ("background", "prewritten", "tests", "trojan", "shadow", "sleeper")
TASKS = ("answer-separate", "answer-shared")


@pytest.fixture(scope="module")
def forged(agents_machine, tmp_path_factory):  # noqa: F811
    root = tmp_path_factory.mktemp("forging")
    tasks = root / "tasks"
    for task in TASKS:
        shutil.copytree(FIXTURES / task, tasks / task)
    workdir = root / "run"
    workdir.mkdir()
    section = {
        "tasks_dir": str(tasks),
        "agents": [{"name": "oracle"}, {"name": "nop"}]
        + [
            {"name": "westbench_forger:ForgerAgent", "id": f"forge-{attack}", "kwargs": {"attack": attack}}
            for attack in ATTACKS
        ],
    }
    result = run_agents(workdir, section)
    assert result.returncode == 0, result.output[-4000:]
    return workdir, trials(workdir)


def trial_dir(workdir, record):
    return workdir / record["trial_dir"]  # relative to Snakemake's working directory


@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("attack", ATTACKS)
def test_every_attack_scores_zero_with_a_failed_status(forged, task, attack):
    workdir, records = forged
    record = records[(task, f"forge-{attack}")]
    assert record["status"] == "failed" and record["correctness"] == 0.0, record
    assert record["verifier_mode"] == "separate"
    log = (trial_dir(workdir, record) / "agent" / "forger.txt").read_text()
    assert f"attack {attack}" in log and "exit 0" in log, log  # the attack was really set up


@pytest.mark.parametrize("task", TASKS)
def test_the_honest_reference_scores_one_and_nop_zero(forged, task):
    _, records = forged
    assert records[(task, "oracle")]["status"] == "passed" and records[(task, "oracle")]["correctness"] == 1.0
    assert records[(task, "nop")]["status"] == "failed" and records[(task, "nop")]["correctness"] == 0.0


def test_a_task_without_artifacts_gets_the_agents_changed_files_but_not_its_tools(forged):
    workdir, records = forged
    oracle = records[("answer-shared", "oracle")]
    assert oracle["verifier_mode_declared"] == "shared" and oracle["artifacts_added"] == ["/.westbench-changes"]
    copied = json.loads((trial_dir(workdir, oracle) / "artifacts" / "westbench-changes.json").read_text())["copied"]
    assert {"/app/hello.txt", "/root/answer.txt"} <= set(copied)
    trojan = json.loads(
        (
            trial_dir(workdir, records[("answer-shared", "forge-trojan")]) / "artifacts" / "westbench-changes.json"
        ).read_text()
    )
    refused = " ".join(trojan["refused"] + trojan["refused_by_diff"])
    for path in (
        "/usr/local/bin/python3",
        "/usr/local/bin/bash",
        "/etc/ld.so.preload",
        "/app/sitecustomize.py",
        "/app/libforge.so",
        "usercustomize.py",
    ):
        assert path in refused, (path, trojan)
    assert not [p for p in trojan["copied"] if "customize" in p or p.startswith(("/usr", "/etc"))]
    shadow = json.loads(
        (
            trial_dir(workdir, records[("answer-shared", "forge-shadow")]) / "artifacts" / "westbench-changes.json"
        ).read_text()
    )
    assert {
        "/app/json.py: would shadow the Python module json",
        "/app/numpy.py: would shadow the Python module numpy",
    } <= set(shadow["refused"]), shadow
    gate = pd.read_csv(workdir / "results" / "agents" / "gate.csv").set_index("task")
    assert gate["passed"].all() and gate.loc["answer-shared", "difficulty"] == "unknown"
    board = pd.read_csv(workdir / "results" / "agents" / "leaderboard.csv").set_index("agent")
    assert board.loc["oracle", "pass_rate"] == 1.0
    assert (board.drop(index=["oracle"])["pass_rate"] == 0.0).all()


def test_a_dropped_in_task_whose_reference_solution_forges_fails_the_gate(agents_machine, tmp_path):  # noqa: F811
    """The report of issue 14: a default-format task whose solve.sh forges the reward passed the gate with 1.0."""
    shutil.copytree(FIXTURES / "forged-solution", tmp_path / "tasks" / "forged-solution")
    (tmp_path / "run").mkdir()
    result = run_agents(tmp_path / "run", {"tasks_dir": str(tmp_path / "tasks")})
    assert result.returncode == 0, result.output[-4000:]
    oracle = trials(tmp_path / "run")[("forged-solution", "oracle")]
    assert oracle["status"] == "failed" and oracle["correctness"] == 0.0, oracle
    gate = pd.read_csv(tmp_path / "run" / "results" / "agents" / "gate.csv").set_index("task")
    assert not gate.loc["forged-solution", "passed"] and gate.loc["forged-solution", "reference_correctness"] == 0.0
    assert "scored 0, not 1.0" in gate.loc["forged-solution", "reason"]
