"""The container engine (``docker`` or ``podman``): a task's image built under a content hash, and a container of it
without network and with the task's limits, labelled with the process that owns it so that one left by a killed
run (``kill -9``, pytest-timeout's thread method) is removed by the next run on this host."""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
import time
from pathlib import Path

from westbench.agents.tasks import TaskError, TaskInfo

IMAGE_PREFIX = "westbench-mutation"
#: The label naming a container's owner: ``host:pid:start`` (the start time tells a reused pid apart).
OWNER_LABEL = "org.westbench.mutation.owner"


class MutationError(TaskError):
    """A task's mutants could not be run (no image, no reference outputs)."""


def tree_hash(*paths: Path, extra: str = "") -> str:
    """SHA-256 over the files (relative names and contents) of folders, and ``extra``.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp()); _ = (folder / "a").write_text("x")
    >>> tree_hash(folder) == tree_hash(folder), tree_hash(folder) == tree_hash(folder, extra="y")
    (True, False)
    """
    digest = hashlib.sha256()
    for root in paths:
        root = Path(root)
        for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
        digest.update(b"\1")
    digest.update(extra.encode())
    return digest.hexdigest()


class Engine:
    """The container engine's command line (``docker`` or ``podman``)."""

    def __init__(self, name: str = "docker"):
        self.name = name

    def run(self, *args: str, timeout: float | None = 600, check: bool = True, stdin: str | None = None):
        result = subprocess.run(
            [self.name, *args], capture_output=True, text=True, timeout=timeout, input=stdin, errors="replace"
        )
        if check and result.returncode != 0:
            raise MutationError(
                f"`{self.name} {' '.join(args[:4])} ...` failed ({result.returncode}): {result.stderr[-800:]}"
            )
        return result

    def image_exists(self, image: str) -> bool:
        return self.run("image", "inspect", image, check=False, timeout=60).returncode == 0


def build_image(task: TaskInfo, engine: Engine) -> str:
    """The task's image, built from ``environment/`` under a content-addressed tag (reused while it exists)."""
    if task.docker_image:
        return task.docker_image
    environment = task.path / "environment"
    tag = f"{IMAGE_PREFIX}/{task.name.lower()}:{tree_hash(environment)[:16]}"
    if not engine.image_exists(tag):
        try:
            engine.run("build", "-q", "-t", tag, str(environment), timeout=task.build_timeout_s)
        except subprocess.TimeoutExpired:
            limit = task.build_timeout_s
            raise MutationError(f"{task.name}: its image took longer than {limit:g} s to build") from None
    return tag


def process_identity(pid: int | None = None) -> str:
    """``host:pid:start`` of a process (start: clock ticks after boot, from /proc; 0 where there is none).

    >>> process_identity().split(":")[1] == str(os.getpid())
    True
    """
    pid = os.getpid() if pid is None else pid
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        start = stat[stat.rindex(")") + 2 :].split()[19]
    except (OSError, ValueError, IndexError):
        start = "0"
    return f"{socket.gethostname()}:{pid}:{start}"


def _alive(identity: str) -> bool:
    host, pid, start = identity.rsplit(":", 2)
    if host != socket.gethostname():
        return True  # another host's process: not ours to judge
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, ValueError):
        return True
    return start == "0" or process_identity(int(pid)) == identity


def sweep_orphans(engine: Engine) -> list[str]:
    """Remove the mutation containers whose owning process on this host is gone; returns their names."""
    listed = engine.run(
        "ps", "-a", "--filter", f"label={OWNER_LABEL}", "--format", f'{{{{.Names}}}} {{{{.Label "{OWNER_LABEL}"}}}}',
        check=False, timeout=60,
    )  # fmt: skip
    removed = []
    for line in listed.stdout.splitlines() if listed.returncode == 0 else []:
        name, _, owner = line.partition(" ")
        if owner.count(":") >= 2 and not _alive(owner):
            engine.run("rm", "-f", name, check=False, timeout=120)
            removed.append(name)
    return removed


class Container:
    """A container of the task image, without network, with the task's limits; removed on exit."""

    def __init__(self, engine: Engine, image: str, task: TaskInfo, label: str):
        self.engine, self.image, self.task = engine, image, task
        self.name = f"westbench-mutation-{label}-{hashlib.sha256(f'{time.time()}{label}'.encode()).hexdigest()[:10]}"

    def __enter__(self):
        sweep_orphans(self.engine)
        limits = []
        if self.task.cpus:
            limits += ["--cpus", f"{self.task.cpus:g}"]
        if self.task.memory_mb:
            limits += ["--memory", f"{self.task.memory_mb}m"]
        self.engine.run(
            "run", "-d", "--name", self.name, "--label", f"{OWNER_LABEL}={process_identity()}",
            "--network", "none", "--init", *limits,
            "--entrypoint", "sleep", self.image, "infinity",
        )  # fmt: skip
        return self

    def __exit__(self, *exc):
        self.engine.run("rm", "-f", self.name, check=False, timeout=120)

    def exec(self, script: str, timeout: float | None) -> subprocess.CompletedProcess:
        try:
            return self.engine.run("exec", self.name, "bash", "-c", script, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            self.engine.run("exec", self.name, "bash", "-c", "kill -9 -1", check=False, timeout=60)
            return subprocess.CompletedProcess([], 124, "", f"timed out after {timeout:g} s")

    def copy_in(self, source: Path, target: str) -> None:
        self.engine.run("exec", self.name, "mkdir", "-p", target)
        self.engine.run("cp", f"{source}/.", f"{self.name}:{target}", timeout=1200)

    def copy_out(self, source: str, target: Path) -> bool:
        target.parent.mkdir(parents=True, exist_ok=True)
        return self.engine.run("cp", f"{self.name}:{source}", str(target), check=False, timeout=1200).returncode == 0
