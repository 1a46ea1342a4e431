"""The suite as a Harbor dataset: `tools/harbor run -d westbench@<version>` resolves the registry that
tools/setup-agents.sh wrote for this checkout, runs a task offline and leaves nothing in the repository."""

import json
import os
import shutil
import subprocess
import uuid

import pytest

from westbench.agents.dataset import DATASET, version

from ..conftest import REPO
from .test_agents_pipeline import agents_machine  # noqa: F401 (session fixture)

pytestmark = [pytest.mark.container, pytest.mark.slow]


def test_one_task_runs_from_the_registry_with_harbor_run_d(agents_machine, tmp_path):  # noqa: F811
    registry = json.loads((REPO / ".venv-harbor" / "registry.json").read_text())
    [spec] = registry
    assert (spec["name"], spec["version"]) == (DATASET, version())
    assert len(spec["tasks"]) == len(
        [p for p in (REPO / "tasks").glob("*/task.toml") if 'name = "westbench/' in p.read_text()]
    )
    assert all(os.path.isdir(task["path"]) for task in spec["tasks"])  # paths valid for this checkout
    job = f"dataset-test-{uuid.uuid4().hex[:8]}"
    before = subprocess.run(["git", "status", "--porcelain"], cwd=REPO, capture_output=True, text=True).stdout
    run = subprocess.run(
        [
            str(REPO / "tools" / "harbor"),
            "run",
            "-d",
            f"{DATASET}@{version()}",
            "-a",
            "oracle",
            "-i",
            "we-weighted-rg",
            "-e",
            "docker",
            "-n",
            "1",
            "-y",
            "--job-name",
            job,
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
    )
    output = run.stdout + run.stderr
    jobs = REPO / "results" / "harbor-jobs" / job
    try:
        assert run.returncode == 0, output[-3000:]
        [result] = [json.loads(p.read_text()) for p in jobs.glob("*/result.json")]
        assert result["verifier_result"]["rewards"]["correctness"] == 1.0 and not result.get("exception_info")
        assert "cost map" not in output.lower()  # LiteLLM's local map: no download attempt
        assert not (tmp_path / "jobs").exists() and list(tmp_path.iterdir()) == []
        after = subprocess.run(["git", "status", "--porcelain"], cwd=REPO, capture_output=True, text=True).stdout
        assert after == before  # nothing left in the repository outside ignored results/
    finally:
        shutil.rmtree(jobs, ignore_errors=True)
