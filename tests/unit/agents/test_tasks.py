"""The task suite as shipped, and the loader on broken or foreign task folders."""

import tomllib

import pytest

from westbench.agents.judge import load_rubric
from westbench.agents.tasks import TaskError, discover_tasks, fingerprint, load_task, task_names

from ...conftest import REPO

TASKS = REPO / "tasks"
REQUIRED_CATEGORIES = {"preparation", "system-building", "analysis", "we-setup", "diagnosis", "parameterization",
                       "long-horizon", "underspecified", "negative"}


@pytest.fixture(scope="module")
def suite():
    return discover_tasks(TASKS)


def test_suite_has_twelve_complete_tasks_over_all_difficulties_and_required_categories(suite):
    assert len(suite) >= 12
    assert {t.difficulty for t in suite} == {"easy", "medium", "hard"}
    assert REQUIRED_CATEGORIES <= {t.category for t in suite}
    for task in suite:
        assert task.problems() == [], task.name


def test_every_task_isolates_its_verifier_and_has_no_network(suite):
    for task in suite:
        assert task.isolated_verifier and task.artifacts == ("/app/output",), task.name
        assert not task.network, task.name
        assert task.agent_timeout_s and task.verifier_timeout_s <= 300 and task.cpus and task.memory_mb, task.name


def test_every_task_builds_from_the_project_base_image_and_ships_its_inputs(suite):
    for task in suite:
        assert task.base_images == ("westbench/md-base:bookworm-1",), task.name
        inputs = task.path / "environment" / "inputs"
        assert inputs.is_dir() and any(inputs.rglob("*")), task.name
        assert sum(p.stat().st_size for p in inputs.rglob("*") if p.is_file()) < 200_000, f"{task.name}: inputs too large"


def test_every_instruction_states_a_contract_of_deliverables_under_app_output(suite):
    for task in suite:
        text = (task.path / "instruction.md").read_text()
        assert "Deliverables (contract)" in text and "/app/output/" in text, task.name


def test_every_task_has_a_rubric_of_process_criteria(suite):
    for task in suite:
        rubric = load_rubric(task.path / "rubric.toml")
        assert len(rubric["criteria"]) >= 3, task.name
        assert {c["type"] for c in rubric["criteria"]} <= {"binary", "likert"}


def test_verifier_helper_copies_match_the_library():
    source = (REPO / "src" / "westbench" / "agents" / "verifykit.py").read_bytes()
    copies = sorted(TASKS.glob("*/tests/verifykit.py"))
    assert len(copies) == len(task_names(TASKS))
    stale = [str(c) for c in copies if c.read_bytes() != source]
    assert not stale, f"run `python3 tools/sync-verifykit.py`: {stale}"


def test_loader_names_the_file_and_the_fix(tmp_path):
    with pytest.raises(TaskError, match="task.toml not found"):
        load_task(tmp_path)
    (tmp_path / "task.toml").write_text("[agent\n")
    with pytest.raises(TaskError, match="not valid TOML"):
        load_task(tmp_path)
    (tmp_path / "task.toml").write_text("[verifier]\ntimeout_sec = -1\n")
    with pytest.raises(TaskError, match=r"\[verifier\].timeout_sec must be a positive number"):
        load_task(tmp_path)
    (tmp_path / "task.toml").write_text("[environment]\nallow_internet = true\n")
    task = load_task(tmp_path)
    assert task.network and task.difficulty == "unknown" and task.category == "uncategorized"
    assert any("tests/test.sh is missing" in p for p in task.problems())
    assert any("environment/Dockerfile is missing" in p for p in task.problems())


def test_fingerprint_changes_with_any_file(tmp_path):
    (tmp_path / "task.toml").write_text("x = 1\n")
    before = fingerprint(tmp_path)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test.sh").write_text("exit 0\n")
    assert fingerprint(tmp_path) != before


def test_task_toml_files_are_harbor_schema_1_4():
    for path in TASKS.glob("*/task.toml"):
        config = tomllib.loads(path.read_text())
        assert config["schema_version"] == "1.4" and config["verifier"]["environment_mode"] == "separate", path
