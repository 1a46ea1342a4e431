"""Which tasks' gate trials a run must run again, and which a recorded full gate covers: the policy.

A gate trial's verdict depends only on what it reads: the task's files, its near misses' folders and the suite's trial
environment (the base images' Dockerfiles, the Harbor plugins and pins, the trial, staging and grading code). A full
gate is recorded with the digest of those inputs (:mod:`westbench.agents.gate_record`, ``tools/gate_record.py``,
``docs/measured/gate_record.json``). A later run needs a task's trials again only where its digest or the
environment's differs from the record, or the record lacks the task or its verdict; and, so that what no digest sees
(a Debian package the base images install, the Docker engine) cannot drift unnoticed forever, every task of one of
:data:`ROTATION_SHARDS` shards, chosen by the run (CI: the commit). Every task is then covered on every run: its
trials run now, or they passed at these exact inputs in the recorded run.

Two questions, one rule: :func:`near_misses_to_gate` (a task's near misses, the gate's costliest trials: several per
task, some rerunning the task's whole simulation; ``agents.gate.near_misses: changed`` asks it) and
:func:`tasks_to_gate` (its reference solution, which must score 1, and its do-nothing agent, 0: the record's ``gate``;
CI's agent tier asks it, ``snakemake agents`` runs both on every selected task).

>>> import tempfile, pathlib
>>> from westbench.agents.gate_record import gate_record
>>> root = pathlib.Path(tempfile.mkdtemp()); tasks = root / "tasks"
>>> for name in ("a", "b"):
...     miss = tasks / name / "near_misses" / "wrong"; miss.mkdir(parents=True)
...     _ = (tasks / name / "task.toml").write_text("x"); _ = (miss / "solve.sh").write_text("echo 1")
...     _ = (miss / "why.md").write_text("Off by one.")
>>> gate = [{"task": "a", "near_misses": 1, "near_miss_caught": 1, "passed": "True"},
...         {"task": "b", "near_misses": 1, "near_miss_caught": 1}]
>>> record = gate_record(gate, tasks, root, label="abc1234")
>>> sorted(record["tasks"]), near_misses_to_gate(tasks, root, record, shard=None)
(['a', 'b'], {})
>>> tasks_to_gate(tasks, root, record, shard=None)  # b's row said nothing of its reference and do-nothing trials
{'b': 'the record holds no verdict of its reference and do-nothing trials'}
>>> _ = (tasks / "a" / "near_misses" / "wrong" / "solve.sh").write_text("echo 2")
>>> near_misses_to_gate(tasks, root, record, shard=None)
{'a': 'changed since the recorded full gate'}
"""

from __future__ import annotations

import hashlib
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path

from westbench.agents.tasks import near_misses, task_files, task_names

#: The number of rotation shards: each run gates the near misses of one shard's tasks whatever the record says, so
#: every task's are rerun at least once in this many runs with consecutive shards. Six keeps CI's agent tier inside
#: its time (a shard is about 40 of the 244 near-miss trials; three shards cost CI some 5 min more on 2 cores)
#: while what no digest sees is still rechecked within six commits.
ROTATION_SHARDS = 6

#: What every trial's verdict depends on beside its task (paths relative to the repository): the base images, the
#: Harbor plugins, Harbor's pins (in the setup script), and the code that stages, runs and grades a trial.
ENVIRONMENT = (
    "docker",
    "harbor_plugins",
    "tools/setup-agents.sh",
    "scripts/agent_trial.py",
    "src/westbench/agents/harbor.py",
    "src/westbench/agents/isolation.py",
    "src/westbench/agents/grading.py",
    "src/westbench/agents/safe_files.py",
    "src/westbench/agents/tasks.py",
)


def _digest(files: Iterable[Path], base: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(files, key=lambda p: str(p.relative_to(base))):
        digest.update(str(path.relative_to(base)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def near_miss_key(task_dir: str | Path) -> str:
    """SHA-256 over what a task's near misses' trials read of it: its files and every near miss folder."""
    task_dir = Path(task_dir)
    folders = [task_dir / "near_misses" / name for name in near_misses(task_dir)]
    files = {Path(p) for p in task_files(task_dir)} | {p for f in folders for p in f.rglob("*") if p.is_file()}
    return _digest(files, task_dir)


def environment_key(root: str | Path) -> str:
    """SHA-256 over :data:`ENVIRONMENT` under the repository ``root`` (a missing path counts as empty)."""
    root = Path(root)
    files = set()
    for name in ENVIRONMENT:
        path = root / name
        files |= (
            {path} if path.is_file() else {p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
        )
    return _digest(files, root)


def shard_of(task: str, shards: int = ROTATION_SHARDS) -> int:
    """The task's rotation shard, stable across machines and runs (a digest of its name, not Python's hash).

    >>> shard_of("we-contact-map") == shard_of("we-contact-map") and 0 <= shard_of("we-contact-map") < 3
    True
    """
    return int(hashlib.sha256(task.encode()).hexdigest()[:8], 16) % shards


def commit_shard(root: str | Path) -> int:
    """The rotation shard a run at the git commit of ``root`` gates (its hash, modulo the record's shards): 0
    outside a git checkout. Consecutive commits take shards in no fixed order, each about equally often.

    >>> import tempfile; commit_shard(tempfile.mkdtemp())
    0
    """
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True)
    except OSError:  # no git on this machine
        return 0
    commit = head.stdout.strip() if head.returncode == 0 else ""
    return int(commit[:8], 16) if commit else 0


def recorded_by(record: Mapping | None, task: str) -> str | None:
    """The commit whose gate recorded ``task``'s near misses all caught (``updated``'s, else the record's), or None
    where the record does not hold the task.

    >>> recorded_by({"commit": "abc", "tasks": {"t": {}}, "updated": {}}, "t"), recorded_by(None, "t")
    ('abc', None)
    """
    if not record or task not in record.get("tasks", {}):
        return None
    return record.get("updated", {}).get(task) or record.get("commit") or "unknown commit"


#: Why a task whose near misses the record covers runs its reference and do-nothing trials all the same.
NO_GATE_VERDICT = "the record holds no verdict of its reference and do-nothing trials"


def _reasons(tasks_dir, root, record: Mapping | None, shard: int | None, tasks: Iterable[str] | None):
    """(task, why its trials must run again, or '' where the record covers them) for the tasks under ``tasks_dir``
    (those named in ``tasks``, or all): the rule both questions share."""
    tasks_dir, record = Path(tasks_dir), record or {}
    environment_changed = record.get("environment") != environment_key(root)
    recorded = record.get("tasks", {})
    shards = int(record.get("rotation_shards", ROTATION_SHARDS))
    for task in task_names(tasks_dir) if tasks is None else tasks:
        if environment_changed:
            yield task, "the trial environment changed since the recorded full gate"
        elif task not in recorded:
            yield task, "not in the record of a full gate that caught all its near misses"
        elif recorded[task]["key"] != near_miss_key(tasks_dir / task):
            yield task, "changed since the recorded full gate"
        elif shard is not None and shard_of(task, shards) == shard % shards:
            yield task, f"rotation shard {shard % shards} of {shards}"
        elif not recorded[task].get("gate"):
            yield task, NO_GATE_VERDICT
        else:
            yield task, ""


def tasks_to_gate(
    tasks_dir: str | Path,
    root: str | Path,
    record: Mapping | None,
    shard: int | None,
    tasks: Iterable[str] | None = None,
) -> dict[str, str]:
    """The tasks under ``tasks_dir`` (those named in ``tasks``, or all) whose reference and do-nothing trials must
    run, each with the reason: those :func:`near_misses_to_gate` names, every task without near misses (never
    recorded), and every recorded task whose reference and do-nothing verdict the record lacks. Every other task
    passed the gate at these exact inputs in the recorded run (its ``gate``)."""
    return {task: why for task, why in _reasons(tasks_dir, root, record, shard, tasks) if why}


def gate_recorded_by(record: Mapping | None, task: str) -> str | None:
    """The commit of the run whose reference and do-nothing trials of ``task`` passed the gate at today's recorded
    digest, or None where the record holds no such verdict.

    >>> gate_recorded_by({"tasks": {"t": {"gate": "abc"}}}, "t"), gate_recorded_by({"tasks": {"t": {}}}, "t")
    ('abc', None)
    """
    return ((record or {}).get("tasks", {}).get(task) or {}).get("gate")


def near_misses_to_gate(
    tasks_dir: str | Path,
    root: str | Path,
    record: Mapping | None,
    shard: int | None,
    tasks: Iterable[str] | None = None,
) -> dict[str, str]:
    """The tasks under ``tasks_dir`` (those named in ``tasks``, or all) whose near misses must be gated, each with the
    reason; every other task that ships near misses is covered by ``record`` (caught at these exact inputs).
    ``shard``: the rotation shard this run gates whatever the record says (None: none, for a run that trusts the
    record alone)."""
    chosen = _reasons(tasks_dir, root, record, shard, tasks)
    covered = ("", NO_GATE_VERDICT)  # the near misses' record holds whatever it says of the other two trials
    return {task: why for task, why in chosen if why not in covered and near_misses(Path(tasks_dir) / task)}
