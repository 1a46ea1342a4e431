"""Harbor task folders: discovery, validation and the settings the pipeline needs.

A task is a folder holding ``task.toml``, ``instruction.md``, ``environment/Dockerfile`` (or a
prebuilt ``[environment].docker_image``), ``tests/test.sh`` and, for the oracle, ``solution/solve.sh``.
Anything written in Harbor's format is accepted unchanged; westbench reads only what it needs
(difficulty and category from ``[metadata]``, limits, network, verifier mode, artifacts).

The suite's own ("shipped") tasks are those whose ``[task].name`` is in the ``westbench/``
namespace; the house rules (tests/unit/agents/test_tasks.py) apply to them only, every other task
folder (a task dropped in from elsewhere) only has to be a valid Harbor task.

Examples
--------
>>> import tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> task = root / "demo"
>>> toml = '[metadata]\\ndifficulty = "easy"\\ncategory = "analysis"\\n[agent]\\ntimeout_sec = 60\\n'
>>> for name, text in {"task.toml": toml,
...                    "instruction.md": "Do it.", "environment/Dockerfile": "FROM debian:bookworm\\n",
...                    "tests/test.sh": "echo 1 > /logs/verifier/reward.txt\\n"}.items():
...     (task / name).parent.mkdir(parents=True, exist_ok=True)
...     _ = (task / name).write_text(text)
>>> info = load_task(task)
>>> info.name, info.difficulty, info.category, info.agent_timeout_s, info.network, info.verifier_mode, info.base_images
('demo', 'easy', 'analysis', 60.0, False, 'shared', ('debian:bookworm',))
>>> info.problems()
['solution/solve.sh is missing: the oracle agent has no reference solution to run']
>>> info.shipped, select_tasks(["a", "we-x", "we-y"], ["we-*"])
(False, ['we-x', 'we-y'])
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from westbench.errors import WestbenchError

# Harbor 0.26's defaults when task.toml leaves a value out.
DEFAULT_VERIFIER_TIMEOUT_S = 600.0
DEFAULT_BUILD_TIMEOUT_S = 600.0
NETWORK_MODES_WITH_ACCESS = ("public", "allowlist")
SHIPPED_NAMESPACE = "westbench/"


class TaskError(WestbenchError):
    """A task folder that Harbor cannot run."""


@dataclass(frozen=True)
class TaskInfo:
    """What the pipeline needs to know about one Harbor task."""

    name: str
    path: Path
    difficulty: str
    category: str
    agent_timeout_s: float | None
    verifier_timeout_s: float
    build_timeout_s: float
    cpus: float | None
    memory_mb: int | None
    network: bool
    verifier_mode: str
    artifacts: tuple[str, ...]
    base_images: tuple[str, ...]
    docker_image: str | None
    files: tuple[str, ...] = field(default=(), repr=False)
    harbor_name: str | None = None

    @property
    def shipped(self) -> bool:
        """Whether the task is one of westbench's own (``[task].name`` in the ``westbench/`` namespace)."""
        return bool(self.harbor_name and self.harbor_name.startswith(SHIPPED_NAMESPACE))

    def problems(self) -> list[str]:
        """What is missing for a full trial, each with the fix; empty when the task is complete."""
        found = []
        if not (self.path / "instruction.md").is_file():
            found.append("instruction.md is missing: write the task's instruction there")
        if not (self.path / "tests" / "test.sh").is_file():
            found.append("tests/test.sh is missing: the verifier must write /logs/verifier/reward.json or reward.txt")
        if self.docker_image is None and not (self.path / "environment" / "Dockerfile").is_file():
            found.append("environment/Dockerfile is missing (or set [environment].docker_image in task.toml)")
        if not (self.path / "solution" / "solve.sh").is_file():
            found.append("solution/solve.sh is missing: the oracle agent has no reference solution to run")
        return found

    @property
    def isolated_verifier(self) -> bool:
        """Whether the verifier runs in a fresh container (an agent cannot forge its reward)."""
        return self.verifier_mode == "separate"


def _number(value, what: str, path: Path) -> float | None:
    if value is None:
        return None
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
        raise TaskError(f"{path}: {what} must be a positive number, got {value!r}")
    return float(value)


def dockerfile_bases(dockerfile: Path) -> tuple[str, ...]:
    """The images a Dockerfile builds FROM (build stages named earlier excluded).

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "Dockerfile"
    >>> _ = path.write_text("FROM --platform=linux/amd64 westbench/md-base:1 AS build\\n"
    ...                     "FROM build\\nFROM debian:bookworm\\n")
    >>> dockerfile_bases(path)
    ('westbench/md-base:1', 'debian:bookworm')
    """
    bases, stages = [], set()
    for line in dockerfile.read_text().splitlines():
        match = re.match(r"^\s*FROM\s+(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?", line, re.IGNORECASE)
        if match:
            image, stage = match.group(1), match.group(2)
            if image.lower() not in stages and image not in bases:
                bases.append(image)
            if stage:
                stages.add(stage.lower())
    return tuple(bases)


NEAR_MISSES = "near_misses"
#: Entries of a task folder that are not part of the task a trial runs: its near misses (:func:`near_misses`:
#: graded by their own trials, never in a container of the task's) and its process opportunity matrix
#: (``process.toml``, read by the process scorecards after the trial, :mod:`westbench.agents.process`), its
#: verifier contract (``contract.toml``, :mod:`westbench.agents.contract`) and its justified equivalent mutants
#: (``mutants.toml``, :mod:`westbench.agents.mutation`): both read by mutation testing, never by a trial, so editing
#: them reruns no trial (:data:`MUTATION_ONLY`).
MUTATION_ONLY = ("contract.toml", "mutants.toml")
NOT_IN_TRIAL = (NEAR_MISSES, "process.toml", *MUTATION_ONLY)


def mutation_files(path: Path) -> tuple[str, ...]:
    """What a task's mutation testing reads: the task's files (:func:`task_files`) and those of
    :data:`MUTATION_ONLY` it has."""
    extra = tuple(str(Path(path) / name) for name in MUTATION_ONLY if (Path(path) / name).is_file())
    return tuple(sorted(task_files(path) + extra))


def task_files(path: Path) -> tuple[str, ...]:
    """Every file of a task, sorted (a change to any of them reruns its trials); what :data:`NOT_IN_TRIAL` names
    is not part of it (editing a near miss or the opportunity matrix reruns no trial).

    >>> import tempfile, pathlib
    >>> task = pathlib.Path(tempfile.mkdtemp())
    >>> for name in ("task.toml", "process.toml", "near_misses/x/solve.sh"):
    ...     (task / name).parent.mkdir(parents=True, exist_ok=True)
    ...     _ = (task / name).write_text("")
    >>> [pathlib.Path(name).name for name in task_files(task)]
    ['task.toml']
    """
    path = Path(path)
    return tuple(
        sorted(
            str(p)
            for p in path.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.relative_to(path).parts[0] not in NOT_IN_TRIAL
        )
    )


def near_misses(path: str | Path) -> dict[str, Path]:
    """The near-miss solutions a task ships, by name: ``near_misses/<name>/solve.sh`` with a one-line ``why.md``.

    A near miss is a plausible wrong solution (an included file left out, invented numbers in the right
    format, ...); the gate runs it as the reference solution and requires it to score below 1. A folder
    without ``solve.sh`` or without a one-line ``why.md`` is a :class:`TaskError` naming the fix.

    >>> import tempfile, pathlib
    >>> task = pathlib.Path(tempfile.mkdtemp())
    >>> (task / "near_misses" / "no-posre").mkdir(parents=True)
    >>> _ = (task / "near_misses" / "no-posre" / "solve.sh").write_text("#!/bin/bash\\n")
    >>> _ = (task / "near_misses" / "no-posre" / "why.md").write_text("Leaves out posre.itp.\\n")
    >>> list(near_misses(task))
    ['no-posre']
    """
    root = Path(path) / NEAR_MISSES
    found = {}
    for folder in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        if not re.fullmatch(r"[A-Za-z0-9._-]+", folder.name):
            raise TaskError(f"{folder}: a near miss's folder name may hold only letters, digits, '.', '_' and '-'")
        if not (folder / "solve.sh").is_file():
            raise TaskError(f"{folder / 'solve.sh'} not found: a near miss is a solve.sh run as the reference solution")
        why = (folder / "why.md").read_text().strip() if (folder / "why.md").is_file() else ""
        if not why or "\n" in why:
            raise TaskError(f"{folder / 'why.md'}: write one line naming the mistake this near miss makes")
        found[folder.name] = folder
    return found


def fingerprint(path: Path) -> str:
    """SHA-256 over the task's relative file names and contents.

    >>> import tempfile, pathlib
    >>> a = pathlib.Path(tempfile.mkdtemp()); _ = (a / "task.toml").write_text("x")
    >>> fingerprint(a) == fingerprint(a), len(fingerprint(a))
    (True, 64)
    """
    digest = hashlib.sha256()
    for name in task_files(path):
        digest.update(str(Path(name).relative_to(path)).encode() + b"\0" + Path(name).read_bytes() + b"\0")
    return digest.hexdigest()


def load_task(path: str | Path) -> TaskInfo:
    """Read and validate one task folder; :class:`TaskError` names the file and the fix."""
    path = Path(path)
    toml_path = path / "task.toml"
    if not toml_path.is_file():
        raise TaskError(f"{toml_path} not found: a Harbor task folder needs task.toml (see tasks/*/task.toml)")
    try:
        config = tomllib.loads(toml_path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise TaskError(f"{toml_path} is not valid TOML: {exc}") from None
    metadata = config.get("metadata", {})
    agent, verifier, environment = (config.get(k, {}) for k in ("agent", "verifier", "environment"))
    network_mode = environment.get("network_mode")
    network = bool(environment.get("allow_internet")) or network_mode in NETWORK_MODES_WITH_ACCESS
    mode = verifier.get("environment_mode") or ("separate" if verifier.get("environment") else "shared")
    if mode not in ("shared", "separate"):
        raise TaskError(f"{toml_path}: [verifier].environment_mode must be 'shared' or 'separate', got {mode!r}")
    dockerfile = path / "environment" / "Dockerfile"
    artifacts = tuple(a if isinstance(a, str) else a.get("source", "") for a in config.get("artifacts", []))
    return TaskInfo(
        name=path.name,
        path=path,
        difficulty=str(metadata.get("difficulty", "unknown")),
        category=str(metadata.get("category", "uncategorized")),
        agent_timeout_s=_number(agent.get("timeout_sec"), "[agent].timeout_sec", toml_path),
        verifier_timeout_s=_number(
            verifier.get("timeout_sec", DEFAULT_VERIFIER_TIMEOUT_S), "[verifier].timeout_sec", toml_path
        ),
        build_timeout_s=_number(
            environment.get("build_timeout_sec", DEFAULT_BUILD_TIMEOUT_S), "[environment].build_timeout_sec", toml_path
        ),
        cpus=_number(environment.get("cpus"), "[environment].cpus", toml_path),
        memory_mb=int(environment["memory_mb"]) if environment.get("memory_mb") else None,
        network=network,
        verifier_mode=mode,
        artifacts=artifacts,
        base_images=dockerfile_bases(dockerfile) if dockerfile.is_file() else (),
        docker_image=environment.get("docker_image"),
        files=task_files(path),
        harbor_name=(config.get("task") or {}).get("name") if isinstance(config.get("task"), dict) else None,
    )


def task_names(root: str | Path) -> list[str]:
    """Names of the task folders under ``root`` (folders holding task.toml), sorted."""
    root = Path(root)
    if not root.is_dir():
        raise TaskError(
            f"tasks folder {root} not found: set agents.tasks_dir in the config to a folder of Harbor tasks"
        )
    return sorted(p.parent.name for p in root.glob("*/task.toml"))


def discover_tasks(root: str | Path) -> list[TaskInfo]:
    """Every task under ``root``; a folder without task.toml is not a task."""
    return [load_task(Path(root) / name) for name in task_names(root)]


def select_tasks(names, patterns) -> list[str]:
    """The ``names`` matching any of the shell-style ``patterns`` (every name when there are none), in order.

    An exact pattern that matches nothing is an error naming the tasks there are.
    """
    import fnmatch

    if not patterns:
        return list(names)
    for pattern in patterns:
        if not any(ch in pattern for ch in "*?[") and pattern not in names:
            raise TaskError(
                f"agents.select.tasks names '{pattern}', which is not a task folder here "
                f"(tasks: {', '.join(names) or 'none'}); fix the name or the agents.tasks_dir"
            )
    return [name for name in names if any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)]
