"""Which near misses a run of the agent benchmark gates (agents.gate.near_misses), and which the recorded full gate
covers instead: the plan's side of :mod:`westbench.agents.gate_record`, which owns the policy.

Examples
--------
>>> near_miss_tasks({"near_misses": False}, ["a"], ["a"], "tasks")
{}
>>> recorded_near_misses({"near_misses": True}, ["a"], chosen={}, record=None)  # a full gate covers nothing
{}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping, Sequence

from westbench.agents.gate_coverage import commit_shard, near_misses_to_gate, recorded_by
from westbench.errors import ConfigError

__all__ = ["REPOSITORY", "near_miss_tasks", "recorded_gate", "recorded_near_misses"]

#: The repository of this package: where agents.gate.record and the trial environment's files are read by default.
REPOSITORY = Path(__file__).resolve().parents[3]


def near_miss_tasks(
    gate: Mapping, names: Sequence[str], tasks: Sequence[str], tasks_dir, root=REPOSITORY, record: Mapping | None = None
) -> dict[str, str]:
    """The selected tasks whose near misses run, each with why (agents.gate.near_misses: true, false, a list of
    task names, or ``changed``: :func:`westbench.agents.gate_coverage.near_misses_to_gate` against ``record``, the
    record of agents.gate.record, :func:`recorded_gate`). A listed name that is no task folder is a ConfigError
    naming it.

    >>> near_miss_tasks({"near_misses": ["b"]}, ["a", "b"], ["a", "b"], "tasks")
    {'b': 'named in agents.gate.near_misses'}
    >>> near_miss_tasks({"near_misses": True}, ["a"], ["a"], "tasks")
    {'a': 'agents.gate.near_misses: true'}
    """
    chosen = gate["near_misses"]
    if chosen == "changed":
        if not tasks:  # no tasks folder, or none selected: nothing to digest
            return {}
        shard = commit_shard(root) if gate["shard"] == "commit" else gate["shard"]
        return near_misses_to_gate(tasks_dir, root, record, shard, tasks)  # the selected tasks only: digests cost
    if isinstance(chosen, bool):
        return {task: "agents.gate.near_misses: true" for task in tasks} if chosen else {}
    unknown = sorted((chosen := set(chosen)) - set(names))
    if unknown:
        raise ConfigError(
            f"agents.gate.near_misses names {', '.join(unknown)}, which {'is' if len(unknown) == 1 else 'are'} not a "
            f"task folder of {tasks_dir}: give task folder names, or true for every task's near misses."
        )
    return {task: "named in agents.gate.near_misses" for task in tasks if task in chosen}


def recorded_gate(gate: Mapping, root=REPOSITORY) -> dict | None:
    """The record of the last full gate (agents.gate.record, relative to ``root``), None where there is none; one
    that is no JSON record is a ConfigError naming the file."""
    path = Path(root) / gate["record"]
    if not path.is_file():
        return None
    try:
        record = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"agents.gate.record: {path} is not JSON ({exc}); restore it from git or rerun a full gate "
            "(agents.gate.near_misses: true) and tools/gate_record.py WORKDIR."
        ) from None
    if not isinstance(record, dict) or not isinstance(record.get("tasks"), dict):
        raise ConfigError(
            f"agents.gate.record: {path} has no `tasks` mapping; it is not a record of tools/gate_record.py."
        )
    return record


def recorded_near_misses(
    gate: Mapping, tasks: Sequence[str], chosen: Mapping, record: Mapping | None
) -> dict[str, str]:
    """The selected ``tasks`` whose near misses do not run (not in ``chosen``) because the recorded full gate
    (``record``) caught them all at today's inputs, each with that gate's commit (agents.gate.near_misses ``changed``
    only)."""
    if gate["near_misses"] != "changed":
        return {}
    recorded = {task: recorded_by(record, task) for task in tasks if task not in chosen}
    return {task: commit for task, commit in recorded.items() if commit}
