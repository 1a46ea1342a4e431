"""Solutions that doctor their own inputs, against every task format, through the rules and Harbor.

Fixture tasks (tests/containers/fixtures/doctor-tasks): ``doctor-artifacts`` declares its whole working folder
(``/app``, the inputs inside it) as the artifact; ``doctor-shared`` is in Harbor's default format (no artifacts,
the verifier in the agent's container as written) and names one folder editable (``[metadata] editable``). Each
ships near misses that rewrite the input data (every value equal) and answer for the doctored data; a suite
task (``we-weighted-rg``, artifacts ``/app/output``) ships one too. The verifier must read the inputs the task
image holds: every doctoring near miss scores 0, every honest reference 1, and the edit of the editable file
reaches the verifier.
"""

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from .test_agents_pipeline import REPO, agents_machine, run_agents, trials  # noqa: F401 (session fixture)

pytestmark = [pytest.mark.container, pytest.mark.slow, pytest.mark.workflow]

FIXTURES = Path(__file__).parent / "fixtures" / "doctor-tasks"
TASKS = ("doctor-artifacts", "doctor-shared")


@pytest.fixture(scope="module")
def doctored(agents_machine, tmp_path_factory):  # noqa: F811
    root = tmp_path_factory.mktemp("doctoring")
    tasks = root / "tasks"
    for task in TASKS:
        shutil.copytree(FIXTURES / task, tasks / task)
    shutil.copytree(REPO / "tasks" / "we-weighted-rg", tasks / "we-weighted-rg")
    workdir = root / "run"
    workdir.mkdir()
    section = {"tasks_dir": str(tasks), "gate": {"mutation": True}}  # the gate's mutation columns, every task format
    result = run_agents(workdir, section, "results/agents/gate.csv", cores=2)
    assert result.returncode == 0, result.output[-4000:]
    return workdir


def near_miss_records(workdir):
    return {
        (p.parent.parent.name, p.parent.name): json.loads(p.read_text())
        for p in (workdir / "results" / "agents" / "near_misses").glob("*/*/trial.json")
    }


def test_every_solution_doctoring_its_inputs_scores_zero_and_the_honest_one_one(doctored):
    records = near_miss_records(doctored)
    doctoring = {key: r for key, r in records.items() if key[1].startswith("doctor")}
    assert set(doctoring) == {
        ("doctor-artifacts", "doctor-inputs"),
        ("doctor-shared", "doctor-inputs"),
        ("doctor-shared", "doctor-with-changed-name"),
        ("we-weighted-rg", "doctored-weights"),
    }
    for key, record in doctoring.items():
        assert record["status"] == "failed" and record["correctness"] < 1.0, (key, record)
    for key in (("doctor-artifacts", "doctor-inputs"), ("doctor-shared", "doctor-inputs")):
        assert records[key]["correctness"] == 0.0, records[key]
    oracles = {task: r for (task, agent), r in trials(doctored).items() if agent == "oracle"}
    assert {task: r["correctness"] for task, r in oracles.items()} == {task: 1.0 for task in (*TASKS, "we-weighted-rg")}
    gate = pd.read_csv(doctored / "results" / "agents" / "gate.csv").set_index("task")
    assert gate["passed"].all(), gate["reason"].to_dict()
    assert (gate["near_miss_caught"] == gate["near_misses"]).all()


def test_the_agents_version_of_an_input_is_refused_and_an_editable_file_travels(doctored):
    record = near_miss_records(doctored)[("doctor-shared", "doctor-inputs")]
    changes = json.loads((doctored / record["trial_dir"] / "artifacts" / "westbench-changes.json").read_text())
    assert "/app/answer.txt" in changes["copied"] and "/app/notes/fixme.txt" in changes["copied"], changes
    assert any(line.startswith("/app/data/values.csv: a file of the task image") for line in changes["refused"])


def test_the_gate_carries_each_tasks_mutation_score_in_every_task_format(doctored):
    gate = pd.read_csv(doctored / "results" / "agents" / "gate.csv").set_index("task")
    assert {"mutation_killed", "mutation_total", "mutation_score"} <= set(gate.columns)
    assert (gate["mutation_total"] > 0).all() and (gate["mutation_score"] == 1.0).all(), gate.to_dict()
    mutants = pd.read_csv(doctored / "results" / "agents" / "mutation.csv")
    assert set(mutants["task"]) == {*TASKS, "we-weighted-rg"} and mutants["killed"].all()
    # the harness mutates what the task delivers, never its inputs: a doctored input is no mutant
    assert not mutants["file"].str.contains("values.csv").any()
