"""The shared rubric and every task's opportunity matrix: known capabilities only, every task has one, errors named."""

import pytest

from westbench.agents.process import CAPABILITIES, PROCESS_FILE, ProcessError, shared_rubric, task_process
from westbench.agents.tasks import discover_tasks, task_files

from ...conftest import REPO

#: The suite's own tasks (the house rules apply to them; a dropped-in task without a matrix is not assessed).
TASKS = [task for task in discover_tasks(REPO / "tasks") if task.shipped]


def test_the_shared_rubric_names_the_six_capabilities_each_with_an_item_of_three_anchors():
    shared = shared_rubric()
    assert tuple(shared.capabilities) == CAPABILITIES
    assert {item.capability for item in shared.items} == set(CAPABILITIES)
    assert all(len(item.anchors) == 3 for item in shared.items)


@pytest.mark.parametrize("task", TASKS, ids=[t.name for t in TASKS])
def test_every_task_has_its_opportunity_matrix_and_its_own_item(task):
    """The class check over every task: a matrix naming only known capabilities, each with why, and at least one
    task-specific 0/1/2-anchored item of a covered capability; deliverables shown that the contract names."""
    matrix = task_process(task.path)
    assert matrix is not None, f"{task.path / PROCESS_FILE} is missing: every task needs its opportunity matrix"
    assert set(matrix.opportunities) <= set(CAPABILITIES) and matrix.covered
    assert matrix.task_items and all(item.capability in matrix.covered for item in matrix.task_items)
    assert "evidence_fidelity" in matrix.covered and "tool_state" in matrix.covered, "every task runs tools"
    assert matrix.files, "show the judge the deliverables the items are about"


def test_the_matrix_is_no_part_of_the_trial():
    """Editing process.toml reruns no trial: it is not among the task's files (its fingerprint, the rule's inputs)."""
    for task in TASKS:
        assert str(task.path / PROCESS_FILE) not in task_files(task.path)


@pytest.mark.parametrize(
    "text, message",
    [
        ('[opportunities]\nplanning = "x"\n', "names 'planning'"),
        ("[opportunities]\n", "at least one"),
        ('[opportunities]\nrepair = ""\n', "why"),
        (
            '[opportunities]\nrepair = "x"\n[[items]]\nid = "a"\ncapability = "coherence"\nquestion = "q"\n'
            'anchors = ["0", "1", "2"]\n',
            "no opportunity here",
        ),
        (
            '[opportunities]\nrepair = "x"\n[[items]]\nid = "a"\ncapability = "repair"\nquestion = "q"\n'
            'anchors = ["0", "2"]\n',
            "three texts",
        ),
        (
            '[opportunities]\nrepair = "x"\n[[items]]\nid = "state-checked"\ncapability = "repair"\nquestion = "q"\n'
            'anchors = ["0", "1", "2"]\n',
            "shared item's",
        ),
        ('[opportunities]\nrepair = "x"\nextra = 1\n', "names 'extra'"),
        ("[opportunities\n", "not valid TOML"),
    ],
)
def test_a_bad_matrix_names_the_file_and_the_fix(tmp_path, text, message):
    (tmp_path / PROCESS_FILE).write_text(text)
    with pytest.raises(ProcessError, match=message) as raised:
        task_process(tmp_path)
    assert str(tmp_path / PROCESS_FILE) in str(raised.value)


def test_a_task_without_a_matrix_is_not_assessed(tmp_path):
    assert task_process(tmp_path) is None


def test_a_shared_rubric_without_a_capability_is_refused(tmp_path):
    text = (REPO / "src" / "westbench" / "agents" / "process" / "rubric.toml").read_text()
    (tmp_path / "rubric.toml").write_text(text.replace("[capabilities.repair]", "[capabilities.planning]"))
    with pytest.raises(ProcessError, match="must be coherence"):
        shared_rubric(tmp_path / "rubric.toml")
