"""Which tasks' near misses a run must gate again: those changed since a full gate caught them all, and a shard.

Near misses are the gate's costliest trials (plausible wrong solutions, several per task, some rerunning the task's
whole simulation), and a near miss's verdict depends only on what its trial reads: the task's files, the near
misses' folders and the suite's trial environment (the base images' Dockerfiles, the Harbor plugins and pins, the
trial, staging and grading code). A full gate (``agents.gate.near_misses: true``) that caught every near miss
of a task is recorded with the digest of those inputs (:func:`gate_record`, written by ``tools/gate_record.py`` to
``docs/measured/gate_record.json``). A later run needs a task's near misses again only where its digest or the
environment's differs from the record, where the record lacks it or did not catch them all; and, so that what no
digest sees (a Debian package the base images install, the Docker engine) cannot drift unnoticed forever, every
task of one of :data:`ROTATION_SHARDS` shards, chosen by the run (CI: the commit). Every task is then covered on
every run: its near misses are gated now, or they were all caught at these exact inputs by the recorded run.

>>> import tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp()); tasks = root / "tasks"
>>> for name in ("a", "b"):
...     miss = tasks / name / "near_misses" / "wrong"; miss.mkdir(parents=True)
...     _ = (tasks / name / "task.toml").write_text("x"); _ = (miss / "solve.sh").write_text("echo 1")
...     _ = (miss / "why.md").write_text("Off by one.")
>>> gate = [{"task": "a", "near_misses": 1, "near_miss_caught": 1}, {"task": "b", "near_misses": 1,
...          "near_miss_caught": 1}]
>>> record = gate_record(gate, tasks, root)
>>> sorted(record["tasks"]), sorted(near_misses_to_gate(tasks, root, record, shard=None))
(['a', 'b'], [])
>>> _ = (tasks / "b" / "near_misses" / "wrong" / "solve.sh").write_text("echo 2")
>>> near_misses_to_gate(tasks, root, record, shard=None)
{'b': 'changed since the recorded full gate'}
"""

from __future__ import annotations

import csv
import hashlib
import json
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path

from westbench.agents.tasks import fingerprint, near_misses, task_files, task_names

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


def gate_record(gate: Iterable[Mapping], tasks_dir: str | Path, root: str | Path) -> dict:
    """The record of a full gate (``gate.csv`` rows): every task that ships near misses and had all of them run and
    caught, with its :func:`near_miss_key`, and the :func:`environment_key`. A task with a near miss run but not
    caught, or fewer run than it ships, is left out, so the next run gates it again."""
    tasks_dir = Path(tasks_dir)
    recorded = {}
    for row in gate:
        task, run, caught = row["task"], int(row["near_misses"]), int(row["near_miss_caught"])
        shipped = len(near_misses(tasks_dir / task)) if (tasks_dir / task).is_dir() else -1
        if shipped > 0 and run == caught == shipped:
            recorded[task] = {"key": near_miss_key(tasks_dir / task), "near_misses": shipped}
    return {"environment": environment_key(root), "rotation_shards": ROTATION_SHARDS, "tasks": recorded}


def record_full_gate(results: str | Path, tasks_dir: str | Path, root: str | Path) -> dict:
    """:func:`gate_record` of a finished run's ``results/agents`` folder (``results``), leaving out every task one of
    whose near-miss trials read other task files than ``tasks_dir`` holds now (its ``task_fingerprint``): their
    verdicts are not of today's inputs. The record's ``stale`` lists them."""
    results, tasks_dir = Path(results), Path(tasks_dir)
    with open(results / "gate.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    stale = set()
    for path in sorted((results / "near_misses").glob("*/*/trial.json")):
        trial = json.loads(path.read_text())
        task = tasks_dir / trial["task"]
        if not task.is_dir() or trial.get("task_fingerprint") != fingerprint(task):
            stale.add(trial["task"])
    record = gate_record([row for row in rows if row["task"] not in stale], tasks_dir, root)
    return {**record, "stale": sorted(stale)}


def update_record(
    record: Mapping, results: str | Path, tasks_dir: str | Path, root: str | Path, label: str | None = None
) -> dict:
    """``record`` with the tasks a later, partial gate ran (``results``: its ``results/agents``) written over:
    each entered as :func:`record_full_gate` would enter it, or dropped where that gate missed or left out a near
    miss, so a changed task is recorded again by gating it alone (``updated``: each such task with ``label``, the
    commit of the partial gate's tree). Refused (``ValueError``) when the trial
    environment differs from the record's: that reruns every task's near misses, and only a full gate records them.
    """
    if record.get("environment") != environment_key(root):
        raise ValueError(
            "the trial environment changed since the recorded full gate: a partial gate cannot update the record; "
            "run `snakemake agents` with agents.gate.near_misses: true and tools/gate_record.py WORKDIR"
        )
    with open(Path(results) / "gate.csv", newline="") as handle:
        gated = {row["task"] for row in csv.DictReader(handle) if int(row["near_misses"]) > 0}
    partial = record_full_gate(results, tasks_dir, root)
    tasks = {task: entry for task, entry in record["tasks"].items() if task not in gated}
    tasks.update(partial["tasks"])
    updated = {task: when for task, when in record.get("updated", {}).items() if task in tasks}
    updated.update({task: label for task in partial["tasks"]})
    return {
        **record,
        "rotation_shards": ROTATION_SHARDS,  # the policy of this code, not of the run that wrote the record first
        "tasks": dict(sorted(tasks.items())),
        "updated": dict(sorted(updated.items())),
        "stale": partial["stale"],
    }


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
    tasks_dir = Path(tasks_dir)
    record = record or {}
    environment_changed = record.get("environment") != environment_key(root)
    recorded = record.get("tasks", {})
    shards = int(record.get("rotation_shards", ROTATION_SHARDS))
    chosen = {}
    for task in task_names(tasks_dir) if tasks is None else tasks:
        if not near_misses(tasks_dir / task):
            continue
        if environment_changed:
            chosen[task] = "the trial environment changed since the recorded full gate"
        elif task not in recorded:
            chosen[task] = "not in the record of a full gate that caught all its near misses"
        elif recorded[task]["key"] != near_miss_key(tasks_dir / task):
            chosen[task] = "changed since the recorded full gate"
        elif shard is not None and shard_of(task, shards) == shard % shards:
            chosen[task] = f"rotation shard {shard % shards} of {shards}"
    return chosen
