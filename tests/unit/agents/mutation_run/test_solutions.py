"""A reference solution's run: what the verifier receives, what an agent may edit, and the run's cache.

Running ``solve.sh`` itself needs a container engine (tests/containers); here the parts that need none."""

import json

from westbench.agents.mutation_run.containers import tree_hash
from westbench.agents.mutation_run.solutions import artifact_paths, editable_paths, run_solution

from .harbor_task import write_task


def test_the_verifier_receives_the_artifacts_without_trailing_slashes(tmp_path):
    task = write_task(tmp_path / "t", artifacts=("/app/output/", "/app/summary.md", "/"))
    assert artifact_paths(task) == ["/app/output", "/app/summary.md"]


def test_without_artifacts_the_verifier_receives_the_dockerfile_working_folder(tmp_path):
    assert artifact_paths(write_task(tmp_path / "t", artifacts=(), workdir="/srv/run")) == ["/srv/run"]
    assert artifact_paths(write_task(tmp_path / "u", artifacts=(), workdir="data")) == ["/app/data"]


def test_editable_files_are_the_metadata_list_and_the_file_artifacts(tmp_path):
    task = write_task(tmp_path / "t", artifacts=("/app/output", "/app/summary.md"), editable=("/app/config.yaml",))
    # a folder artifact (no suffix) is no editable file: only what the run adds there reaches the verifier
    assert editable_paths(task) == ["/app/config.yaml", "/app/summary.md"]
    assert editable_paths(write_task(tmp_path / "u", artifacts=("/app/output",), editable=())) == []


def test_a_cached_run_is_returned_without_running_a_container(tmp_path):
    """The cache is keyed by the environment, the solution and the image: a recorded run is never rerun (no
    engine is needed: None here)."""
    task = write_task(tmp_path / "t")
    cache = tmp_path / "cache"
    key = tree_hash(task.path / "environment", task.path / "solution", extra="img:1")[:24]
    record = {"exit_code": 0, "elapsed_s": 1.5, "log_tail": "done"}
    (cache / key / "root").mkdir(parents=True)
    (cache / key / "solve.json").write_text(json.dumps(record))
    root, info = run_solution(None, "img:1", task, task.path / "solution", cache, "oracle")
    assert root == cache / key / "root" and info == record
