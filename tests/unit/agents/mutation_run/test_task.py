"""One task's mutation record. :func:`mutate_task` builds the task image and runs every case in containers
(tests/containers); here the parts that need no engine: the task read first, the cases' names and files."""

import pytest

from westbench.agents.mutation.catalogue import Mutant
from westbench.agents.mutation_run.containers import MutationError
from westbench.agents.mutation_run.task import NOP_CASE, _case_changes, _mutated_solution, _outcome, mutate_task
from westbench.agents.mutation_run.verifier import ORACLE_CASE
from westbench.agents.tasks import TaskError


def test_a_folder_without_task_toml_is_refused_before_any_container(tmp_path):
    with pytest.raises(TaskError, match=r"task.toml not found"):
        mutate_task(tmp_path, tmp_path / "cache", engine="no-such-engine")
    assert not (tmp_path / "cache").exists()


def test_an_output_mutant_edits_files_under_the_artifact_folder():
    mutant = Mutant("x", "negate", "a.json", "", "output", {"a.json": "{}", "sub/b.txt": None})
    assert _case_changes(mutant, "/app/output/") == {"/app/output/a.json": "{}", "/app/output/sub/b.txt": None}
    assert _case_changes(mutant, "/") == {"/a.json": "{}", "/sub/b.txt": None}


def test_the_do_nothing_case_is_verified_after_the_oracle_and_every_mutant():
    """The driver verifies the cases in `ls` order (C locale: byte order), mutants named m0000, m0001, ..."""
    names = [ORACLE_CASE, NOP_CASE, *(f"m{i:04d}" for i in (0, 7, 9999))]
    assert sorted(names, key=str.encode)[-1] == NOP_CASE


def _task(tmp_path):
    from types import SimpleNamespace

    (tmp_path / "task" / "solution").mkdir(parents=True)
    (tmp_path / "task" / "solution" / "solve.sh").write_text("echo ok\n")
    (tmp_path / "task" / "solution" / "keep.py").write_text("x = 1\n")
    return SimpleNamespace(name="t", path=tmp_path / "task")


def test_a_solution_mutant_edits_adds_and_deletes_files_in_a_copy(tmp_path):
    task = _task(tmp_path)
    mutant = Mutant("s", "drop", "solve.sh", "", "solution", {"solution/solve.sh": None, "solution/new/a.py": "y\n"})
    (tmp_path / "scratch").mkdir()
    solution = _mutated_solution(task, mutant, tmp_path / "scratch")
    assert sorted(p.relative_to(solution).as_posix() for p in solution.rglob("*.py")) == ["keep.py", "new/a.py"]
    assert not (solution / "solve.sh").exists() and (task.path / "solution" / "solve.sh").exists()


def test_a_solution_mutant_editing_outside_the_solution_is_refused(tmp_path):
    mutant = Mutant("s", "escape", "x", "", "solution", {"../outside.txt": "z"})
    (tmp_path / "scratch").mkdir()
    with pytest.raises(MutationError, match=r"t: mutant s edits \.\./outside\.txt, outside the solution"):
        _mutated_solution(_task(tmp_path), mutant, tmp_path / "scratch")
    assert not (tmp_path / "outside.txt").exists()


@pytest.mark.parametrize(
    ("correctness", "oracle_ok", "exit_code", "expected"),
    [
        (0.5, True, 0, ("0.5; failed: a | b; slow", True)),
        (1.0, True, None, ("1; failed: a | b; slow", False)),
        (None, True, 0, ("error: not graded (slow)", False)),
        (0.0, False, 0, ("error: the reference solution scored 0.2 (broken)", False)),
        (0.0, True, 3, ("0; failed: a | b; slow; solve.sh exited 3", True)),
    ],
)
def test_a_mutant_outcome_reads_its_verdict(correctness, oracle_ok, exit_code, expected):
    result = {"correctness": correctness, "failed": ["a", "b"], "note": "slow"}
    oracle = {"correctness": 0.2, "note": "broken"}
    assert _outcome(result, oracle, oracle_ok, {"exit_code": exit_code}) == expected
    if exit_code in (0, None):  # no solution run (an output mutant) reads the same
        assert _outcome(result, oracle, oracle_ok, None) == expected
