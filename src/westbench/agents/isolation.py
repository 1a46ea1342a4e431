"""Every trial is verified in a fresh container: the staged copy of a task that Harbor runs.

Whatever a task's task.toml says, westbench runs Harbor on a copy of the task folder whose
``[verifier] environment_mode`` is ``"separate"``. Harbor then (single-step tasks):

1. stops and removes the agent's container after collecting its artifacts (``docker compose down``):
   no agent process survives into verification;
2. starts a fresh container from the task's image, empties ``/logs/verifier`` in it (a reward file
   written earlier is gone), copies ``tests/`` in from the task folder on the host (a replaced
   ``/tests`` in the agent's container is never read) and reads the reward the verifier writes there;
3. copies in only the artifacts. A task that declares none gets :data:`CHANGES_ARTIFACT`: the
   files the agent added or changed, exported by the container engine, without anything under /usr,
   /bin, /lib, /etc, /opt, /logs, /tests, /solution and without Python/shell start-up files,
   libraries and links (``harbor_plugins/westbench_changes.py``), so the verifier's interpreter,
   shell and libraries are the image's. With an environment without westbench's plugin
   (singularity) the Dockerfile's WORKDIR (default /app) is the artifact instead.

The staged copy is written next to the trial's Harbor job folder; the task's own folder is never
changed (its fingerprint is what the results record).

Examples
--------
>>> text = ('version = "1.0"\\n\\n[verifier]\\ntimeout_sec = 60.0\\nenvironment_mode = "shared"\\n\\n'
...         '[agent]\\ntimeout_sec = 9\\n')
>>> staged = separate_verifier_toml(text, ["/.westbench-changes"])
>>> import tomllib; parsed = tomllib.loads(staged)
>>> parsed["verifier"], parsed["artifacts"], parsed["agent"]
({'environment_mode': 'separate', 'timeout_sec': 60.0}, ['/.westbench-changes'], {'timeout_sec': 9})
>>> tomllib.loads(separate_verifier_toml("", []))["verifier"]
{'environment_mode': 'separate'}
"""

from __future__ import annotations

import json
import re
import shutil
import tomllib
from pathlib import Path
from typing import Sequence

from westbench.agents.tasks import NOT_IN_TRIAL, TaskError, TaskInfo

# Kept equal to harbor_plugins/westbench_changes.py (a unit test compares them).
CHANGES_ARTIFACT = "/.westbench-changes"
DEFAULT_WORKDIR = "/app"
_HEADER = re.compile(r"^\s*\[([^\[\]]+)\]\s*(#.*)?$")


def separate_verifier_toml(text: str, add_artifacts: Sequence[str]) -> str:
    """``text`` of a task.toml with ``[verifier] environment_mode = "separate"`` and ``add_artifacts`` declared."""
    lines = text.splitlines()
    out, table, placed = [], None, False
    for line in lines:
        header = _HEADER.match(line)
        if header:
            table = header.group(1).strip()
            out.append(line)
            if table == "verifier":
                out.append('environment_mode = "separate"')
                placed = True
            continue
        if table == "verifier" and re.match(r"^\s*environment_mode\s*=", line):
            continue
        if table is None and add_artifacts and re.match(r"^\s*artifacts\s*=\s*\[\s*\]\s*(#.*)?$", line):
            continue
        out.append(line)
    if not placed:
        out += ["", "[verifier]", 'environment_mode = "separate"']
    if add_artifacts:
        out.insert(0, "artifacts = " + json.dumps(list(add_artifacts)))
    return "\n".join(out) + "\n"


def dockerfile_workdir(dockerfile: Path) -> str:
    """The last absolute WORKDIR of a Dockerfile (default /app).

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "Dockerfile"
    >>> _ = path.write_text("FROM x\\nWORKDIR /srv\\nWORKDIR data\\n")
    >>> dockerfile_workdir(path)
    '/srv/data'
    """
    workdir = DEFAULT_WORKDIR
    if dockerfile.is_file():
        for line in dockerfile.read_text().splitlines():
            match = re.match(r"^\s*WORKDIR\s+(\S+)", line, re.IGNORECASE)
            if match:
                value = match.group(1).strip("\"'")
                workdir = value if value.startswith("/") else f"{workdir.rstrip('/')}/{value}"
    return workdir


def stage_task(
    task: TaskInfo, destination: Path, plugin_environment: bool, solution: Path | None = None
) -> tuple[Path, list[str]]:
    """Copy ``task`` to ``destination/<task name>`` with its verifier forced into a fresh container.

    The task's near misses and opportunity matrix (:data:`~westbench.agents.tasks.NOT_IN_TRIAL`) are not copied;
    ``solution`` (a near miss's folder) replaces ``solution/`` in the copy, so the oracle agent runs it as the
    reference solution (its ``why.md`` left out).
    Returns the staged folder and the artifacts westbench added (empty when the task declares its own).
    """
    staged = Path(destination) / task.path.name
    if staged.exists():
        shutil.rmtree(staged)
    shutil.copytree(
        task.path,
        staged,
        symlinks=False,
        ignore=lambda folder, names: [
            n for n in names if n == "__pycache__" or (Path(folder) == task.path and n in NOT_IN_TRIAL)
        ],
    )
    if solution is not None:
        shutil.rmtree(staged / "solution", ignore_errors=True)
        shutil.copytree(
            solution, staged / "solution", symlinks=False, ignore=shutil.ignore_patterns("why.md", "__pycache__")
        )
    config = tomllib.loads((task.path / "task.toml").read_text())
    if config.get("steps"):
        raise TaskError(
            f"{task.path / 'task.toml'}: multi-step tasks ([[steps]]) are not supported by westbench's "
            "verifier isolation; split the task into single-step tasks"
        )
    added = (
        []
        if task.artifacts
        else [CHANGES_ARTIFACT if plugin_environment else dockerfile_workdir(task.path / "environment" / "Dockerfile")]
    )
    text = separate_verifier_toml((task.path / "task.toml").read_text(), added)
    try:
        parsed = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TaskError(
            f'{task.path / "task.toml"}: cannot set [verifier] environment_mode = "separate" in it '
            f"({exc}); write [verifier] as a table of its own"
        ) from None
    if parsed.get("verifier", {}).get("environment_mode") != "separate":
        raise TaskError(
            f'{task.path / "task.toml"}: cannot set [verifier] environment_mode = "separate" in it; '
            "write [verifier] as a table of its own"
        )
    (staged / "task.toml").write_text(text)
    return staged, added
