"""Staging every task for a fresh verifier container, and what of an agent's files may travel into it."""

import importlib.util
import tomllib

import pytest

from westbench.agents.isolation import CHANGES_ARTIFACT, stage_task
from westbench.agents.tasks import TaskError, load_task

from ...conftest import REPO

FORGE_TASKS = REPO / "tests" / "containers" / "fixtures" / "forge-tasks"


def _changes_module():
    spec = importlib.util.spec_from_file_location("westbench_changes", REPO / "harbor_plugins" / "westbench_changes.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_default_format_task_is_staged_with_a_separate_verifier_and_the_changes_artifact(tmp_path):
    task = load_task(FORGE_TASKS / "answer-shared")
    assert task.verifier_mode == "shared" and task.artifacts == ()
    staged, added = stage_task(task, tmp_path, plugin_environment=True)
    config = tomllib.loads((staged / "task.toml").read_text())
    assert staged.name == "answer-shared" and added == [CHANGES_ARTIFACT]
    assert config["verifier"] == {"environment_mode": "separate", "timeout_sec": 60.0}
    assert config["artifacts"] == [CHANGES_ARTIFACT] and config["metadata"]["author_name"] == "someone else"
    assert (staged / "tests" / "test.sh").read_text() == (task.path / "tests" / "test.sh").read_text()
    assert "environment_mode" not in (task.path / "task.toml").read_text()  # the task's own folder is untouched
    _, added = stage_task(task, tmp_path / "other", plugin_environment=False)
    assert added == ["/app"]  # no plugin to export changes: the Dockerfile's WORKDIR


def test_a_task_declaring_its_artifacts_keeps_them(tmp_path):
    task = load_task(FORGE_TASKS / "answer-separate")
    staged, added = stage_task(task, tmp_path, plugin_environment=True)
    assert added == [] and tomllib.loads((staged / "task.toml").read_text())["artifacts"] == ["/app/output"]


def test_a_verifier_table_that_cannot_be_rewritten_is_refused_with_the_fix(tmp_path):
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "task.toml").write_text("verifier = { timeout_sec = 10.0 }\n")
    with pytest.raises(TaskError, match=r"write \[verifier\] as a table of its own"):
        stage_task(load_task(tmp_path / "t"), tmp_path / "out", plugin_environment=True)


def test_the_plugin_and_the_library_name_the_same_pseudo_artifact():
    assert _changes_module().CHANGES_ARTIFACT == CHANGES_ARTIFACT


@pytest.mark.parametrize(
    "path, copied",
    [
        ("/app/output/result.csv", True),
        ("/root/answer.txt", True),
        ("/tmp/notes.md", True),
        ("/app/analysis.py", True),
        ("/usr/local/bin/python3", False),
        ("/usr/local/bin/bash", False),
        ("/bin/sh", False),
        ("/etc/ld.so.preload", False),
        ("/usr/lib/python3/dist-packages/sitecustomize.py", False),
        ("/app/sitecustomize.py", False),
        ("/root/.local/lib/python3.11/site-packages/usercustomize.py", False),
        ("/app/evil.pth", False),
        ("/app/libforge.so", False),
        ("/app/conftest.py", False),
        ("/app/pytest.ini", False),
        ("/app/__pycache__/x.cpython-311.pyc", False),
        ("/root/.bashrc", False),
        ("/tests/test.sh", False),
        ("/logs/verifier/reward.txt", False),
        ("/solution/solve.sh", False),
    ],
)
def test_what_may_enter_a_verifier_container(path, copied):
    assert (_changes_module().refused(path) is None) is copied


def test_the_plugin_rules_examples_hold():
    import doctest

    assert doctest.testmod(_changes_module()).failed == 0


def test_a_near_miss_is_staged_as_the_solution_and_no_near_miss_enters_the_copy(tmp_path):
    source = tmp_path / "task"
    for name, text in {
        "task.toml": 'artifacts = ["/app/output"]\n[verifier]\nenvironment_mode = "separate"\n',
        "instruction.md": "Do it.",
        "environment/Dockerfile": "FROM debian:bookworm\n",
        "tests/test.sh": "exit 0\n",
        "solution/solve.sh": "echo reference\n",
        "solution/helper.py": "x = 1\n",
        "near_misses/made-up/solve.sh": "echo wrong\n",
        "near_misses/made-up/why.md": "Invents it.\n",
    }.items():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text(text)
    task = load_task(source)
    staged, _ = stage_task(task, tmp_path / "plain", plugin_environment=True)
    assert (
        not (staged / "near_misses").exists() and (staged / "solution" / "solve.sh").read_text() == "echo reference\n"
    )
    staged, _ = stage_task(
        task, tmp_path / "miss", plugin_environment=True, solution=source / "near_misses" / "made-up"
    )
    assert sorted(p.name for p in (staged / "solution").iterdir()) == [
        "solve.sh"
    ]  # the reference's files and why.md gone
    assert (staged / "solution" / "solve.sh").read_text() == "echo wrong\n" and not (staged / "near_misses").exists()
    assert (source / "solution" / "solve.sh").read_text() == "echo reference\n"  # the task's own folder is untouched
