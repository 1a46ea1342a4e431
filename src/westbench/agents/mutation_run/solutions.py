"""A reference solution (or a solution mutant) run in a fresh container of the task image: what it delivered, cached by
hash, only what the run added or changed (the image's own inputs never)."""

from __future__ import annotations

import json
import shlex
import shutil
import time
import tomllib
from pathlib import Path

from westbench.agents.isolation import dockerfile_workdir
from westbench.agents.mutation_run.containers import Container, Engine, tree_hash
from westbench.agents.tasks import TaskInfo


def artifact_paths(task: TaskInfo) -> list[str]:
    """What the verifier receives of a run: the task's artifacts, else its Dockerfile's working folder."""
    paths = [a.rstrip("/") for a in task.artifacts if a.strip("/")]
    return paths or [dockerfile_workdir(task.path / "environment" / "Dockerfile")]


def _under(path: str, roots) -> bool:
    return any(path == root.rstrip("/") or path.startswith(root.rstrip("/") + "/") for root in roots)


def editable_paths(task: TaskInfo) -> list[str]:
    """Files of the task image an agent may change for the verifier: ``[metadata] editable`` and file artifacts."""
    config = tomllib.loads((task.path / "task.toml").read_text())
    editable = [p for p in (config.get("metadata") or {}).get("editable", []) if isinstance(p, str)]
    return editable + [a for a in task.artifacts if Path(a).suffix]


def run_solution(
    engine: Engine, image: str, task: TaskInfo, solution: Path, cache_dir: Path, label: str
) -> tuple[Path, dict]:
    """Run ``solution/solve.sh`` in a fresh container; its artifacts under ``<cache>/<hash>/root`` (cached)."""
    key = tree_hash(task.path / "environment", solution, extra=image)[:24]
    folder = cache_dir / key
    record = folder / "solve.json"
    if record.is_file():
        return folder / "root", json.loads(record.read_text())
    if folder.exists():
        shutil.rmtree(folder)
    partial = cache_dir / f"{key}.partial"
    if partial.exists():
        shutil.rmtree(partial)
    partial.mkdir(parents=True)
    workdir = dockerfile_workdir(task.path / "environment" / "Dockerfile")
    started = time.monotonic()
    with Container(engine, image, task, label) as container:
        container.copy_in(solution, "/solution")
        result = container.exec(
            f"cd {shlex.quote(workdir)} && bash /solution/solve.sh", timeout=task.agent_timeout_s or 3600
        )
        for artifact in artifact_paths(task):
            container.copy_out(artifact, partial / "root" / artifact.lstrip("/"))
        diff = engine.run("diff", container.name, check=False).stdout
    # Only what the run added or changed reaches the verifier, never the image's own files (its inputs) unless
    # the task names them editable, as in a trial (harbor_plugins/westbench_docker.py).
    kinds = {line[2:].strip(): line[:1] for line in diff.splitlines() if line[:2] in ("A ", "C ")}
    editable = editable_paths(task)
    for path in sorted((partial / "root").rglob("*"), reverse=True):
        inside = "/" + path.relative_to(partial / "root").as_posix()
        if path.is_file() or path.is_symlink():
            kind = kinds.get(inside)
            if not (kind == "A" or (kind == "C" and _under(inside, editable))):
                path.unlink()
    info = {
        "exit_code": result.returncode,
        "elapsed_s": round(time.monotonic() - started, 2),
        "log_tail": (result.stdout + result.stderr)[-2000:],
    }
    (partial / "root").mkdir(exist_ok=True)
    (partial / "solve.json").write_text(json.dumps(info, indent=1))
    partial.rename(folder)
    return folder / "root", info
