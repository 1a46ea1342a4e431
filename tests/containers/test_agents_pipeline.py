"""The agent benchmark for real: Docker, Harbor and the Snakemake rules, offline.

The session fixture runs tools/setup-agents.sh (idempotent: Docker engine, dockerd, the base image
built without pulling, Harbor in .venv-harbor), so `.ci/run` on a clean clone does everything.
"""

import json
import shutil
import subprocess
import sys

import pandas as pd
import pytest
import yaml

from ..conftest import REPO

pytestmark = [pytest.mark.container, pytest.mark.slow, pytest.mark.workflow]

FOREIGN_TASK = {
    # A task written elsewhere in Harbor's format: no westbench metadata, verifier in the agent's container,
    # reward.txt instead of reward.json, a Debian base image.
    "task.toml": 'version = "1.0"\n\n[metadata]\nauthor_name = "someone else"\n\n[verifier]\ntimeout_sec = 60.0\n\n'
                 '[agent]\ntimeout_sec = 120.0\n\n[environment]\nbuild_timeout_sec = 300.0\ncpus = 1\nmemory_mb = 1024\n',
    "instruction.md": "Write the words hello world into /app/hello.txt.\n",
    "environment/Dockerfile": "FROM debian:bookworm-slim\nWORKDIR /app\n",
    "solution/solve.sh": "#!/bin/bash\necho 'hello world' > /app/hello.txt\n",
    "tests/test.sh": "#!/bin/bash\nif grep -q 'hello world' /app/hello.txt 2>/dev/null; then echo 1 > /logs/verifier/reward.txt; "
                     "else echo 0 > /logs/verifier/reward.txt; fi\n",
}


@pytest.fixture(scope="session")
def agents_machine():
    result = subprocess.run(["bash", str(REPO / "tools" / "setup-agents.sh")], capture_output=True, text=True, timeout=1800)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return REPO


def run_agents(workdir, agents_section, *targets, cores=2, env=None):
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["agents"] = agents_section
    (workdir / "config.yaml").write_text(yaml.safe_dump(config))
    command = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(workdir), "--configfile",
               str(workdir / "config.yaml"), "--cores", str(cores), *(targets or ["agents"])]
    result = subprocess.run(command, capture_output=True, text=True, timeout=2400, env=env)
    result.output = result.stdout + result.stderr
    return result


def trials(workdir):
    return {(r["task"], r["agent"]): r for r in
            (json.loads(p.read_text()) for p in (workdir / "results" / "agents" / "trials").glob("*/*/*/*/trial.json"))}


@pytest.fixture(scope="module")
def suite_run(agents_machine, tmp_path_factory):
    """Oracle and nop on every task of tasks/ through the rules (about 3-6 minutes on 2 cores)."""
    workdir = tmp_path_factory.mktemp("agents-suite")
    result = run_agents(workdir, {"tasks_dir": str(REPO / "tasks")})
    assert result.returncode == 0, result.output[-4000:]
    return workdir


def test_oracle_scores_one_and_nop_zero_on_every_task(suite_run):
    gate = pd.read_csv(suite_run / "results" / "agents" / "gate.csv")
    assert len(gate) == len(list((REPO / "tasks").glob("*/task.toml"))) >= 12
    assert gate["passed"].all(), gate.loc[~gate["passed"], ["task", "reason"]].to_string()
    records = trials(suite_run)
    assert {r["status"] for (t, a), r in records.items() if a == "oracle"} == {"passed"}
    assert {r["status"] for (t, a), r in records.items() if a == "nop"} == {"failed"}
    for record in records.values():
        assert record["network"] is False and record["verifier_mode"] == "separate"
        assert record["rewards"]["checks_total"] >= 4 and record["wall_s"] > 0


def test_leaderboard_tables_and_figure(suite_run):
    out = suite_run / "results" / "agents"
    board = pd.read_csv(out / "leaderboard.csv").set_index("agent")
    assert board.loc["oracle", "avg_score"] == 100.0 and board.loc["oracle", "pass_rate"] == 1.0
    assert board.loc["nop", "avg_score"] == 0.0 and board.loc["nop", "n_failed"] == board.loc["nop", "trials"]
    assert pd.isna(board.loc["oracle", "strict_pass_at_1"]) and board.loc["oracle", "judged_share"] == 0.0  # no judge: not judged
    by_difficulty = pd.read_csv(out / "leaderboard_by_difficulty.csv")
    assert set(by_difficulty["difficulty"]) == {"easy", "medium", "hard"}
    assert len(pd.read_csv(out / "leaderboard_by_category.csv")["category"].unique()) >= 9
    assert (out / "leaderboard.png").stat().st_size > 10_000
    judges = list((out / "trials").glob("*/*/*/*/judge.json"))
    assert judges and all(json.loads(p.read_text())["judged"] is False for p in judges)


def test_rerun_is_a_no_op(suite_run):
    result = run_agents(suite_run, {"tasks_dir": str(REPO / "tasks")}, "agents", "-n")
    assert result.returncode == 0 and "Nothing to be done" in result.output, result.output[-2000:]


@pytest.fixture(scope="module")
def forger_run(agents_machine, tmp_path_factory):
    """A forging agent on an isolated task, on the same task with a shared verifier, and a foreign task."""
    root = tmp_path_factory.mktemp("forge")
    tasks = root / "tasks"
    shutil.copytree(REPO / "tasks" / "we-contact-map", tasks / "we-contact-map")
    shutil.copytree(REPO / "tasks" / "we-contact-map", tasks / "we-contact-map-shared")
    toml = tasks / "we-contact-map-shared" / "task.toml"
    toml.write_text(toml.read_text().replace('environment_mode = "separate"', 'environment_mode = "shared"'))
    for name, text in FOREIGN_TASK.items():
        (tasks / "hello-foreign" / name).parent.mkdir(parents=True, exist_ok=True)
        (tasks / "hello-foreign" / name).write_text(text)
    workdir = root / "run"
    workdir.mkdir()
    section = {"tasks_dir": str(tasks), "agents": [{"name": "oracle"}, {"name": "nop"},
                                                   {"name": "westbench_forger:ForgerAgent", "id": "forger"}]}
    result = run_agents(workdir, section)
    assert result.returncode == 0, result.output[-4000:]
    return workdir, result.output


def test_a_forged_reward_does_not_count(forger_run):
    workdir, _ = forger_run
    records = trials(workdir)
    isolated = records[("we-contact-map", "forger")]
    assert isolated["correctness"] == 0.0 and isolated["status"] == "failed", isolated
    # The attack is real: with the verifier in the agent's container the same agent gets full marks.
    shared = records[("we-contact-map-shared", "forger")]
    assert shared["correctness"] == 1.0, shared


def test_a_task_written_elsewhere_runs_and_is_graded_unchanged(forger_run):
    workdir, output = forger_run
    records = trials(workdir)
    assert records[("hello-foreign", "oracle")]["status"] == "passed"
    assert records[("hello-foreign", "nop")]["correctness"] == 0.0
    gate = pd.read_csv(workdir / "results" / "agents" / "gate.csv").set_index("task")
    assert gate.loc["hello-foreign", "passed"] and gate.loc["hello-foreign", "difficulty"] == "unknown"
    assert gate.loc["hello-foreign", "verifier_mode"] == "shared"
    assert "could forge its reward" in output
    board = pd.read_csv(workdir / "results" / "agents" / "leaderboard.csv")
    assert set(board["agent"]) == {"oracle", "nop", "forger"} and (board["gated_tasks"] == 3).all()


def test_a_base_image_that_cannot_be_pulled_is_an_environment_error_naming_it(agents_machine, tmp_path):
    from westbench.agents.harbor import execute_trial
    from westbench.config import section_defaults

    task = tmp_path / "offline-miss"
    shutil.copytree(REPO / "tasks" / "we-weighted-rg", task)
    dockerfile = task / "environment" / "Dockerfile"
    dockerfile.write_text(dockerfile.read_text().replace("westbench/md-base:bookworm-1", "example.invalid/md:99"))
    record = execute_trial(task, {"id": "nop", "name": "nop"}, None, 1, section_defaults("agents"), REPO, tmp_path / "jobs" / "1")
    assert record["status"] == "environment_error" and record["correctness"] == 0.0
    assert "example.invalid/md:99" in record["reason"] and "cannot be pulled offline" in record["reason"]
