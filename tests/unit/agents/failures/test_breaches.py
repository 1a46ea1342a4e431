"""Contract-breach signatures: the recorded trials, every task's contract, the missing-deliverable rule's property."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.agents.failures.breaches import (
    SIGNATURES,
    breach,
    contract_names,
    delivered_files,
    missing_deliverables,
    signature,
    task_contract,
)
from westbench.agents.tasks import discover_tasks

from ...conftest import REPO
from ..recorded import TASK_DIR, recorded_trial

SHIPPED = [task for task in discover_tasks(REPO / "tasks") if task.shipped]


def test_the_trial_that_claims_and_fails_misses_rg_csv_and_the_one_that_recovers_breaches_nothing(tmp_path):
    contract = task_contract(TASK_DIR)
    assert contract == ["rg.csv", "summary.json"]
    folder, trial = recorded_trial("claims-and-fails", tmp_path)
    found = breach(trial, json.loads((folder / "judge.json").read_text()), contract)
    assert found["missing_deliverable"] and found["missing_files"] == "rg.csv" and found["failed_check"]
    assert found["signature"] == "missing deliverable" and found["checks_failed"] == 6 and found["checks_total"] == 8
    folder, trial = recorded_trial("recovers-and-passes", tmp_path)
    found = breach(trial, json.loads((folder / "judge.json").read_text()), contract)
    assert found == {**found, "missing_deliverable": False, "failed_check": False, "signature": "none"}


@pytest.mark.parametrize("task", SHIPPED, ids=[t.name for t in SHIPPED])
def test_every_task_names_its_deliverables_and_no_input_among_them(task):
    """A shipped input's name counts as a deliverable only where the contract writes it as /app/output/<name>."""
    names = task_contract(task.path)
    assert names, f"{task.path / 'instruction.md'}: no deliverable found in its contract section"
    shipped = {p.name for p in (task.path / "environment").rglob("*") if p.is_file()}
    instruction = (task.path / "instruction.md").read_text()
    assert all(f"/app/output/{name}" in instruction for name in shipped & set(names))


def test_inputs_and_commands_are_not_deliverables():
    text = (
        "Inputs: `/app/inputs/md.mdp`.\n## Deliverables\n| `awh.mdp` | `md.mdp`'s settings |\n"
        "| `/app/output/HILLS` | only when done |\n`gmx grompp -f awh.mdp -c /app/inputs/conf.gro` and `ensemble.check`"
    )
    assert contract_names(text) == ["awh.mdp", "HILLS"]
    assert contract_names("no contract section, `/app/output/x.csv`") == []


delivered_sets = st.sets(st.sampled_from(["a.csv", "b.json", "sub/c.mdp", "window_0.mdp", "window_1.mdp"]))


@settings(max_examples=150, deadline=None)
@given(delivered=delivered_sets, named=delivered_sets)
def test_a_deliverable_is_missing_exactly_when_not_delivered_and_a_failed_check_names_it(delivered, named):
    contract = ["a.csv", "b.json", "sub/c.mdp", "window_*.mdp", "later.txt"]
    checks = [{"name": f"{n} readable", "passed": False, "reason": "FileNotFoundError"} for n in sorted(named)]
    checks.append({"name": "later.txt only on the other route", "passed": True, "reason": ""})
    found = missing_deliverables(checks, contract, delivered)
    assert set(found) == {n for n in named if n not in delivered}
    assert "later.txt" not in found  # named only by a passing check


def test_without_a_contract_the_failed_checks_output_paths_are_used():
    checks = [{"name": "x", "passed": False, "reason": "FileNotFoundError: '/app/output/res/out.json'"}]
    assert missing_deliverables(checks, [], delivered=set()) == ["res/out.json"]
    assert missing_deliverables(checks, [], delivered={"res/out.json"}) == []


def test_the_delivered_listing_reads_nothing_and_stays_in_the_trial(tmp_path):
    output = tmp_path / "artifacts" / "app" / "output"
    (output / "sub").mkdir(parents=True)
    (output / "sub" / "a.csv").write_text("x")
    (tmp_path / "secret.txt").write_text("s")
    (output / "link.csv").symlink_to(tmp_path / "secret.txt")
    (output / "dirlink").symlink_to(tmp_path)
    assert delivered_files(tmp_path) == {"sub/a.csv", "link.csv", "dirlink"}


@pytest.mark.parametrize(
    "trial, checks, missing, shortfall, expected",
    [
        ({"status": "environment_error", "correctness": None}, None, [], None, "no verdict"),
        ({"status": "verifier_error", "correctness": 0.0}, None, [], None, "no verdict"),
        ({"status": "failed", "correctness": 0.0}, [{"passed": False}], ["a"], True, "missing deliverable"),
        ({"status": "failed", "correctness": 0.5}, [{"passed": False}], [], True, "failed check"),
        ({"status": "failed", "correctness": 0.5}, None, [], None, "failed check"),
        ({"status": "agent_timeout", "correctness": 1.0}, [{"passed": True}], [], None, "agent timeout or error"),
        ({"status": "passed", "correctness": 1.0}, [{"passed": True}], [], True, "judge shortfall"),
        ({"status": "passed", "correctness": 1.0}, [{"passed": True}], [], None, "none"),
    ],
)
def test_the_signature_is_the_first_that_applies(trial, checks, missing, shortfall, expected):
    assert signature(trial, checks, missing, shortfall) == expected
    assert expected in SIGNATURES
