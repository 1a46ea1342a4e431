"""The verifier of every case: its driver script and each case's reward read as Harbor reads it.

:func:`verify_cases` runs in a container of the task image (tests/containers); here the parts that need none:
the driver script it runs there, and how a case's copied results become its correctness."""

import json
import shutil
import subprocess

import pytest

from westbench.agents.mutation_run.solutions import artifact_paths
from westbench.agents.mutation_run.verifier import (
    DRIVER,
    MUTANTS_DIR,
    ORACLE_CASE,
    PRISTINE_DIR,
    RESULTS_DIR,
    _reward,
)

from .harbor_task import write_task


def driver(task):
    import shlex

    return DRIVER.format(
        results=RESULTS_DIR,
        pristine=PRISTINE_DIR,
        mutants=MUTANTS_DIR,
        artifacts=" ".join(shlex.quote(a) for a in artifact_paths(task)),
        timeout=int(task.verifier_timeout_s),
    )


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash to parse the driver script")
def test_the_driver_is_valid_bash_for_artifacts_with_spaces(tmp_path):
    task = write_task(tmp_path / "t", artifacts=("/app/output", "/app/my results"))
    script = driver(task)
    assert "'/app/my results'" in script and "timeout 77 bash /tests/test.sh" in script
    checked = subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr


def write(folder, case, **files):
    for suffix, text in files.items():
        (folder / f"{case}.{suffix.replace('_', '.')}").write_text(text)


def test_a_case_reads_its_correctness_and_failed_checks(tmp_path):
    checks = {"checks": [{"name": "a", "passed": True}, {"name": "b", "passed": False}, {"name": "c"}]}
    write(tmp_path, "m0001", reward_json=json.dumps({"correctness": 0.25}), checks_json=json.dumps(checks))
    write(tmp_path, "m0001", exit="0 1.0 2.5")
    assert _reward(tmp_path, "m0001") == (0.25, ["b", "c"], "", 3)


def test_reward_txt_is_read_when_there_is_no_reward_json(tmp_path):
    write(tmp_path, ORACLE_CASE, reward_txt="1\n")
    assert _reward(tmp_path, ORACLE_CASE) == (1.0, [], "", None)


@pytest.mark.parametrize(
    "files, expected",
    [
        ({}, (None, [], "", None)),
        ({"reward_json": "{not json"}, (None, [], "reward.json unreadable", None)),
        ({"reward_txt": ""}, (None, [], "reward.txt unreadable", None)),
        ({"reward_txt": "0.5", "exit": "124 1.0 9.0"}, (None, [], "verifier timed out", None)),
        (
            {"reward_txt": "0", "checks_json": json.dumps({"checks": [], "error": "E" * 400})},
            (0.0, [], "E" * 300, 0),
        ),
        # a checks.json of the wrong shape is ignored like an unreadable one, never ends the mutation run
        pytest.param({"reward_txt": "0", "checks_json": '{"checks": ["a"]}'}, (0.0, [], "", None)),
        pytest.param({"reward_txt": "0", "checks_json": "[1, 2]"}, (0.0, [], "", None)),
    ],
    ids=["nothing", "bad-json", "empty-txt", "timeout", "error-note", "check-not-a-table", "checks-a-list"],
)
def test_a_case_without_a_readable_reward_says_why(tmp_path, files, expected):
    write(tmp_path, "m0002", **files)
    assert _reward(tmp_path, "m0002") == expected
