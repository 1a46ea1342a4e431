"""One task's mutation record. :func:`mutate_task` builds the task image and runs every case in containers
(tests/containers); here the parts that need no engine: the task read first, the cases' names and files."""

import pytest

from westbench.agents.mutation.catalogue import Mutant
from westbench.agents.mutation_run.task import NOP_CASE, _case_changes, mutate_task
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
