"""The agent benchmark for real: Docker, Harbor and the Snakemake rules, offline.

The session fixture runs tools/setup-agents.sh (idempotent: Docker engine, dockerd, the base image
built without pulling, Harbor in .venv-harbor), so `.ci/run` on a clean clone does everything.
"""

import functools
import json
import shutil
import subprocess
import sys

import pandas as pd
import pytest
import yaml

from westbench.agents.composition import tasks_composition
from westbench.agents.gate_coverage import (
    commit_shard,
    environment_key,
    gate_recorded_by,
    near_miss_key,
    near_misses_to_gate,
    recorded_by,
    tasks_to_gate,
)
from westbench.agents.tasks import near_misses

from ..conftest import REPO

pytestmark = [pytest.mark.container, pytest.mark.slow, pytest.mark.workflow]


@pytest.fixture(scope="session")
def agents_machine():
    result = subprocess.run(
        ["bash", str(REPO / "tools" / "setup-agents.sh")], capture_output=True, text=True, timeout=1800
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return REPO


def run_agents(workdir, agents_section, *targets, cores=2, env=None):
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    # The mutation testing of the verifiers (hours over the suite) has tests of its own (test_mutation.py,
    # test_pristine_inputs.py): a pipeline test runs it only when its section asks. A test's tasks run their near
    # misses (a copied task would otherwise count as recorded: the record is of content, not of folders).
    gate = {"mutation": False, "near_misses": True, **agents_section.get("gate", {})}
    agents_section = {**agents_section, "gate": gate}
    config["agents"] = agents_section
    (workdir / "config.yaml").write_text(yaml.safe_dump(config))
    command = [
        sys.executable,
        "-m",
        "snakemake",
        "-s",
        str(REPO / "Snakefile"),
        "-d",
        str(workdir),
        "--configfile",
        str(workdir / "config.yaml"),
        "--cores",
        str(cores),
        *(targets or ["agents"]),
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=2400, env=env)
    result.output = result.stdout + result.stderr
    return result


def trials(workdir):
    return {
        (r["task"], r["agent"]): r
        for r in (
            json.loads(p.read_text()) for p in (workdir / "results" / "agents" / "trials").glob("*/*/*/*/trial.json")
        )
    }


#: The full gate's record: per task, the digest of what its near misses read, all caught (tools/gate_record.py).
GATE_RECORD = REPO / "docs" / "measured" / "gate_record.json"


def gate_record():
    return json.loads(GATE_RECORD.read_text()) if GATE_RECORD.is_file() else None


@functools.cache
def gate_selection() -> dict:
    """The tasks whose reference and do-nothing trials this run gates, with why: every task changed since the recorded
    full gate (all, where the trial environment changed), every task the record holds no passing verdict of, and the
    rotation shard of this commit (its hash modulo the shards), so consecutive commits rerun every task in turn
    (westbench.agents.gate_coverage.tasks_to_gate). Every other task passed the gate at its current inputs in the
    recorded run (test_every_task_passed_the_gate_here_or_at_the_same_inputs_in_the_recorded_run)."""
    return tasks_to_gate(REPO / "tasks", REPO, gate_record(), commit_shard(REPO))


@functools.cache
def near_miss_selection() -> dict:
    """The tasks whose near misses this run gates, with why: the default agents.gate.near_misses `changed`
    (westbench.agents.gate_coverage.near_misses_to_gate), asked here to print and check what the plan chose; always
    among :func:`gate_selection`'s tasks."""
    return near_misses_to_gate(REPO / "tasks", REPO, gate_record(), commit_shard(REPO))


def suite_section() -> dict:
    return {
        "tasks_dir": str(REPO / "tasks"),
        "select": {"tasks": sorted(gate_selection())},
        "gate": {"near_misses": "changed", "shard": "commit"},
    }


@pytest.fixture(scope="module")
def suite_run(agents_machine, tmp_path_factory):
    """Oracle and nop on the tasks :func:`gate_selection` chooses, through the rules, and the near misses
    :func:`near_miss_selection` chooses (5-15 minutes on 2 cores). A trial mostly waits on Docker (container start,
    staging, the verifier's own container), so four run at once."""
    workdir = tmp_path_factory.mktemp("agents-suite")
    for task, why in sorted(gate_selection().items()):
        print(f"{task}: {why}" + ("" if task in near_miss_selection() else " (its near misses: by the record)"))
    result = run_agents(workdir, suite_section(), cores=4)
    assert result.returncode == 0, result.output[-4000:]
    return workdir


def all_tasks() -> list[str]:
    return sorted(path.parent.name for path in (REPO / "tasks").glob("*/task.toml"))


def test_every_task_passed_the_gate_here_or_at_the_same_inputs_in_the_recorded_run(suite_run):
    """How CI covers every task while running the gate of a part of them: its reference and do-nothing trials ran
    here (test_oracle_scores_one_and_nop_zero_on_every_task_run), or the recorded gate passed them at a digest of the
    task, its near misses and the trial environment equal to today's. At least a rotation shard ran."""
    gate = pd.read_csv(suite_run / "results" / "agents" / "gate.csv").set_index("task")
    record = gate_record() or {"tasks": {}}
    assert set(gate.index) == set(gate_selection()) and len(gate) >= 8
    unchanged = record.get("environment") == environment_key(REPO)
    uncovered = [
        task
        for task in all_tasks()
        if task not in gate.index
        and not (
            unchanged
            and record["tasks"].get(task, {}).get("key") == near_miss_key(REPO / "tasks" / task)
            and gate_recorded_by(record, task)
        )
    ]
    assert len(all_tasks()) >= 76 and not uncovered, f"tasks neither gated here nor by the record: {uncovered}"


def test_oracle_scores_one_and_nop_zero_on_every_task_run(suite_run):
    gate = pd.read_csv(suite_run / "results" / "agents" / "gate.csv")
    assert sorted(gate["task"]) == sorted(gate_selection())
    assert gate["passed"].all(), gate.loc[~gate["passed"], ["task", "reason"]].to_string()
    # every near miss of the tasks chosen ran as the reference and scored below 1 (caught)
    assert (gate["near_miss_caught"] == gate["near_misses"]).all()
    rate = json.loads((suite_run / "results" / "agents" / "gate.json").read_text())["near_miss_catch_rate"]
    assert rate["catch_rate"] == 1.0 and rate["near_misses"] == gate["near_misses"].sum() > 0
    records = trials(suite_run)
    assert {r["status"] for (t, a), r in records.items() if a == "oracle"} == {"passed"}
    assert {r["status"] for (t, a), r in records.items() if a == "nop"} == {"failed"}
    for (task, agent), record in records.items():
        assert record["network"] is False and record["verifier_mode"] == "separate"
        assert record["rewards"]["checks_total"] >= 4 and record["wall_s"] > 0, (task, agent)
    # A verifier records every check whatever is missing (a missing deliverable fails each check that needs it), so
    # the nop agent, which delivers nothing, records as many checks as the oracle on every task.
    totals = {(task, agent): record["rewards"]["checks_total"] for (task, agent), record in records.items()}
    differ = {
        task: (totals[(task, "oracle")], totals.get((task, "nop")))
        for task, agent in totals
        if agent == "oracle" and totals.get((task, "nop")) != totals[(task, "oracle")]
    }
    assert not differ, f"checks recorded (oracle, nop): {differ}"


def test_every_tasks_near_misses_are_caught_now_or_at_the_same_inputs_by_the_recorded_full_gate(suite_run):
    """How CI covers every near miss while running a part of them: a task's near misses ran here (all of those it
    ships, all caught), or the record of a full gate caught all of them at a digest of the task, its near misses and
    the trial environment equal to today's. The suite ships at least 68 near misses."""
    gate = pd.read_csv(suite_run / "results" / "agents" / "gate.csv").set_index("task")
    record = gate_record() or {"tasks": {}}
    environment_unchanged = record.get("environment") == environment_key(REPO)
    shipped, uncovered = 0, []
    for task in all_tasks():
        count = len(near_misses(REPO / "tasks" / task))
        shipped += count
        if not count:
            continue
        if task in gate.index and gate.loc[task, "near_misses_run"]:
            ran = gate.loc[task, "near_misses"] == gate.loc[task, "near_miss_caught"] == count
        else:
            entry = record["tasks"].get(task, {})
            ran = environment_unchanged and entry.get("key") == near_miss_key(REPO / "tasks" / task)
            ran = ran and entry.get("near_misses") == count
            # where the task's gate ran here, gate.csv names the gate that caught them, as the agent page shows it
            ran = ran and (
                task not in gate.index or gate.loc[task, "near_misses_recorded"] == recorded_by(record, task)
            )
        if not ran:
            uncovered.append(task)
    assert shipped >= 68 and not uncovered, f"near misses neither caught here nor by the recorded gate: {uncovered}"
    ran = {task for task in gate.index if gate.loc[task, "near_misses_run"]}
    assert ran == set(near_miss_selection())  # the plan chose what the policy chooses


def test_leaderboard_tables_and_figure(suite_run):
    out = suite_run / "results" / "agents"
    board = pd.read_csv(out / "leaderboard.csv").set_index("agent")
    assert board.loc["oracle", "fc_avg_score"] == 100.0 and board.loc["oracle", "pass_rate"] == 1.0
    assert board.loc["nop", "fc_avg_score"] == 0.0 and board.loc["nop", "n_failed"] == board.loc["nop", "trials"]
    assert (
        pd.isna(board.loc["oracle", "strict_pass_at_1"]) and board.loc["oracle", "judged_share"] == 0.0
    )  # no judge: not judged
    by_tag = pd.read_csv(out / "leaderboard_by_tag.csv")
    # every tag value of the tasks run, read from their task.toml files, has its row
    ran = tasks_composition(REPO / "tasks" / task for task in sorted(gate_selection()))
    for tag in ("difficulty", "category", "method"):
        assert set(by_tag.loc[by_tag["tag"] == tag, "value"]) == set(ran[tag]), tag
    packages = {package for names in ran["packages"] for package in names}
    assert set(by_tag.loc[by_tag["tag"] == "package", "value"]) == packages
    oracle = by_tag[(by_tag["agent"] == "oracle") & (by_tag["tag"] == "difficulty")]
    assert oracle["tasks"].sum() == board.loc["oracle", "tasks"] == len(ran) and (oracle["pass_rate"] == 1.0).all()
    composition = pd.read_csv(out / "suite_composition.csv")
    assert composition.loc[composition["tag"] == "difficulty", "tasks"].sum() == len(ran)
    assert (out / "suite_composition.png").stat().st_size > 10_000
    assert (out / "leaderboard.png").stat().st_size > 10_000
    assert (out / "outcomes.png").stat().st_size > 5_000 and (out / "cost_vs_success.png").stat().st_size > 5_000
    # Wilson's interval at n of n and 0 of n passes: n / (n + z^2) and z^2 / (n + z^2), z = 1.96
    z2, n = 1.959964**2, len(ran)
    assert board.loc["oracle", "pass_rate_lo"] == pytest.approx(n / (n + z2), abs=1e-3)
    assert board.loc["nop", "pass_rate_hi"] == pytest.approx(z2 / (n + z2), abs=1e-3)
    judges = list((out / "trials").glob("*/*/*/*/judge.json"))
    assert judges and all(json.loads(p.read_text())["judged"] is False for p in judges)


def test_the_failure_analysis_finds_every_tasks_deliverables_missing_for_nop(suite_run):
    """The missing-deliverable rule over every task's contract: the null agent delivers nothing and a failed check names
    a contracted file on every task; the reference solution breaches nothing. Neither writes Harbor's trajectory, and
    the gate's agents get no process scorecard (agents.process.assess_gate_agents is false)."""
    out = suite_run / "results" / "agents"
    failures = pd.read_csv(out / "failures.csv")
    nop, oracle = failures[failures["agent"] == "nop"], failures[failures["agent"] == "oracle"]
    assert len(nop) == len(oracle) == len(gate_selection())
    missed = nop[nop["signature"] != "missing deliverable"]
    assert missed.empty, missed[["task", "signature", "checks_failed"]].to_string()
    assert (oracle["signature"] == "none").all() and (failures["trajectory"] == "absent").all()
    assert pd.read_csv(out / "process.csv").empty and not list((out / "trials").glob("*/*/*/*/process.json"))
    assert "No trial has a scorecard" in (suite_run / "results" / "report" / "agents.html").read_text()


def test_rerun_is_a_no_op(suite_run):
    result = run_agents(suite_run, suite_section(), "agents", "-n")
    assert result.returncode == 0 and "Nothing to be done" in result.output, result.output[-2000:]


def test_a_base_image_that_cannot_be_pulled_is_an_environment_error_naming_it(agents_machine, tmp_path):
    from westbench.agents.harbor import execute_trial
    from westbench.config import section_defaults

    task = tmp_path / "offline-miss"
    shutil.copytree(REPO / "tasks" / "we-weighted-rg", task)
    dockerfile = task / "environment" / "Dockerfile"
    dockerfile.write_text(dockerfile.read_text().replace("westbench/md-base:bookworm-1", "example.invalid/md:99"))
    record = execute_trial(
        task, {"id": "nop", "name": "nop"}, None, 1, section_defaults("agents"), REPO, tmp_path / "jobs" / "1"
    )
    assert record["status"] == "environment_error" and record["correctness"] == 0.0
    assert "example.invalid/md:99" in record["reason"] and "cannot be pulled offline" in record["reason"]
