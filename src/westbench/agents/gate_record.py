"""The record of a full gate: per task, the digest of what its gate trials read, where its near misses were all
caught, and whether its reference and do-nothing trials passed (``docs/measured/gate_record.json``, written by
``tools/gate_record.py``); which trials a later run reruns is :mod:`westbench.agents.gate_coverage`'s.

>>> import tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp()); miss = root / "tasks" / "a" / "near_misses" / "wrong"
>>> miss.mkdir(parents=True); _ = (miss / "solve.sh").write_text("echo 1"); _ = (miss / "why.md").write_text("Off.")
>>> _ = (root / "tasks" / "a" / "task.toml").write_text("x")
>>> rows = [{"task": "a", "near_misses": "1", "near_miss_caught": "1", "passed": "True"}]
>>> entry = gate_record(rows, root / "tasks", root, label="abc1234")["tasks"]["a"]
>>> entry["near_misses"], entry["gate"]
(1, 'abc1234')
>>> gate_record([{**rows[0], "near_miss_caught": "0"}], root / "tasks", root)["tasks"]  # one missed: not recorded
{}
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from westbench.agents.gate_coverage import ROTATION_SHARDS, environment_key, near_miss_key
from westbench.agents.tasks import fingerprint, near_misses


def _passed(row: Mapping) -> bool:
    """Whether a ``gate.csv`` row (read by :mod:`csv`: strings, or by pandas) passed the gate."""
    return str(row.get("passed", "")).strip().lower() in ("true", "1")


def gate_record(gate: Iterable[Mapping], tasks_dir: str | Path, root: str | Path, label: str | None = None) -> dict:
    """The record of a full gate (``gate.csv`` rows): every task that ships near misses and had all of them run and
    caught, with its :func:`near_miss_key`, and the :func:`environment_key`; where the row passed the gate (reference
    1, do-nothing agent 0), ``gate`` holds ``label`` (the commit of the run). A task with a near miss run but not
    caught, or fewer run than it ships, is left out, so the next run gates it again."""
    tasks_dir = Path(tasks_dir)
    recorded = {}
    for row in gate:
        task, run, caught = row["task"], int(row["near_misses"]), int(row["near_miss_caught"])
        shipped = len(near_misses(tasks_dir / task)) if (tasks_dir / task).is_dir() else -1
        if shipped > 0 and run == caught == shipped:
            recorded[task] = {"key": near_miss_key(tasks_dir / task), "near_misses": shipped}
            if _passed(row):
                recorded[task]["gate"] = label or "unknown commit"
    return {"environment": environment_key(root), "rotation_shards": ROTATION_SHARDS, "tasks": recorded}


def _gate_rows(results: Path) -> list[dict]:
    with open(results / "gate.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def _stale(results: Path, tasks_dir: Path) -> set[str]:
    """The tasks one of whose trials in ``results`` (near misses and every agent's) read other task files than
    ``tasks_dir`` holds now (their ``task_fingerprint``): their verdicts are not of today's inputs."""
    stale = set()
    trials = [*(results / "near_misses").glob("*/*/trial.json"), *(results / "trials").glob("*/*/*/*/trial.json")]
    for path in sorted(trials):
        trial = json.loads(path.read_text())
        task = tasks_dir / trial["task"]
        if not task.is_dir() or trial.get("task_fingerprint") != fingerprint(task):
            stale.add(trial["task"])
    return stale


def record_full_gate(results: str | Path, tasks_dir: str | Path, root: str | Path, label: str | None = None) -> dict:
    """:func:`gate_record` of a finished run's ``results/agents`` folder (``results``), leaving out every task one of
    whose trials read other task files than ``tasks_dir`` holds now (its ``task_fingerprint``): their verdicts are
    not of today's inputs. The record's ``stale`` lists them."""
    results, tasks_dir = Path(results), Path(tasks_dir)
    stale = _stale(results, tasks_dir)
    record = gate_record([row for row in _gate_rows(results) if row["task"] not in stale], tasks_dir, root, label)
    return {**record, "stale": sorted(stale)}


def update_record(
    record: Mapping, results: str | Path, tasks_dir: str | Path, root: str | Path, label: str | None = None
) -> dict:
    """``record`` with the tasks a later, partial gate ran (``results``: its ``results/agents``) written over:
    each entered as :func:`record_full_gate` would enter it, or dropped where that gate missed or left out a near
    miss, so a changed task is recorded again by gating it alone (``updated``: each such task with ``label``, the
    commit of the partial gate's tree); a recorded task whose reference and do-nothing trials alone ran has its
    ``gate`` verdict set or cleared (:func:`record_gate_verdicts`). Refused (``ValueError``) when the trial
    environment differs from the record's: that reruns every task's near misses, and only a full gate records them.
    """
    if record.get("environment") != environment_key(root):
        raise ValueError(
            "the trial environment changed since the recorded full gate: a partial gate cannot update the record; "
            "run `snakemake agents` with agents.gate.near_misses: true and tools/gate_record.py WORKDIR"
        )
    rows, stale = _gate_rows(Path(results)), _stale(Path(results), Path(tasks_dir))  # gate.csv read once
    gated = {row["task"] for row in rows if int(row["near_misses"]) > 0}
    partial = gate_record([row for row in rows if row["task"] not in stale], tasks_dir, root, label)["tasks"]
    tasks = {task: entry for task, entry in record["tasks"].items() if task not in gated}
    tasks = record_gate_verdicts(tasks, rows, tasks_dir, label, exclude=stale)
    tasks.update(partial)
    updated = {task: when for task, when in record.get("updated", {}).items() if task in tasks}
    updated.update({task: label for task in partial})
    return {
        **record,
        "rotation_shards": ROTATION_SHARDS,  # the policy of this code, not of the run that wrote the record first
        "tasks": dict(sorted(tasks.items())),
        "updated": dict(sorted(updated.items())),
        "stale": sorted(stale),
    }


def record_gate_verdicts(
    tasks: Mapping[str, Mapping],
    rows: Iterable[Mapping],
    tasks_dir: str | Path,
    label: str | None,
    exclude: Iterable[str] = (),
) -> dict[str, dict]:
    """The recorded ``tasks`` with the gate verdicts of a run's ``gate.csv`` ``rows`` whose reference and do-nothing
    trials ran (not those in ``exclude``, read from other files): ``gate`` set to ``label`` where the row passed,
    removed where it did not; only for a task whose recorded digest is still today's (another one's near misses
    are gated again anyway).

    >>> import tempfile, pathlib
    >>> task = pathlib.Path(tempfile.mkdtemp()) / "a"; task.mkdir(); _ = (task / "task.toml").write_text("x")
    >>> tasks = {"a": {"key": near_miss_key(task), "near_misses": 1}}
    >>> rows = [{"task": "a", "reference_status": "passed", "passed": "True"}]
    >>> record_gate_verdicts(tasks, rows, task.parent, "abc1234")["a"]["gate"]
    'abc1234'
    >>> "gate" in record_gate_verdicts(tasks, [{**rows[0], "passed": "False"}], task.parent, "abc1234")["a"]
    False
    """
    tasks = {task: dict(entry) for task, entry in tasks.items()}
    exclude = set(exclude)
    for row in rows:
        task = row["task"]
        if task in exclude or task not in tasks or not row.get("reference_status"):
            continue
        if tasks[task]["key"] != near_miss_key(Path(tasks_dir) / task):
            continue
        if _passed(row):
            tasks[task]["gate"] = label or "unknown commit"
        else:
            tasks[task].pop("gate", None)
    return tasks
