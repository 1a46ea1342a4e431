"""The design of an agent benchmark from the ``agents`` config section: which trials exist.

Examples
--------
>>> section = {"agents": [{"name": "oracle", "id": None, "models": []},
...                       {"name": "terminus-2", "id": None, "models": ["openai/gpt-4o", "x/y"]}], "attempts": 2,
...            "gate": {"reference": "oracle", "null": "nop"}}
>>> [(a, m) for a, m, _ in runs(section)]
[('oracle', 'none'), ('terminus-2', 'openai--gpt-4o'), ('terminus-2', 'x--y')]
>>> trial_path("t", "oracle", "none", 1)
'results/agents/trials/t/oracle/none/1/trial.json'
>>> check_gate_agents(section)  # doctest: +NORMALIZE_WHITESPACE
Traceback (most recent call last):
...
westbench.errors.ConfigError: agents.gate.null is 'nop' but no entry of agents.agents has that id
(ids: oracle, terminus-2); add {name: nop} to agents.agents.
"""

from __future__ import annotations

import re
from typing import Mapping

from westbench.agents.harbor import model_id
from westbench.errors import ConfigError

RESULTS = "results/agents"


def agent_entries(section: Mapping) -> list[dict]:
    """The configured agents with their ids resolved (unique)."""
    entries, seen = [], set()
    for entry in section["agents"]:
        agent_id = entry.get("id") or re.sub(r"[^A-Za-z0-9._-]+", "-", entry["name"].split(":")[-1])
        if agent_id in seen:
            raise ConfigError(f"agents.agents: two entries have id '{agent_id}'; give one an explicit `id`.")
        seen.add(agent_id)
        entries.append({**entry, "id": agent_id})
    return entries


def selected_entries(section: Mapping) -> list[dict]:
    """The agents that run: those matching ``select.agents`` (all when empty), the gate's two always.

    >>> section = {"agents": [{"name": "oracle"}, {"name": "nop"}, {"name": "x:Y", "id": "forge-a"},
    ...            {"name": "x:Y", "id": "forge-b"}], "gate": {"reference": "oracle", "null": "nop"},
    ...            "select": {"agents": ["forge-b"]}}
    >>> [e["id"] for e in selected_entries(section)]
    ['oracle', 'nop', 'forge-b']
    """
    import fnmatch

    entries = agent_entries(section)
    patterns = (section.get("select") or {}).get("agents") or []
    if not patterns:
        return entries
    ids = [e["id"] for e in entries]
    for pattern in patterns:
        if not any(ch in pattern for ch in "*?[") and pattern not in ids:
            raise ConfigError(
                f"agents.select.agents names '{pattern}', which is no id in agents.agents (ids: {', '.join(ids)})"
            )
    keep = {section["gate"]["reference"], section["gate"]["null"]}
    return [e for e in entries if e["id"] in keep or any(fnmatch.fnmatchcase(e["id"], p) for p in patterns)]


def runs(section: Mapping) -> list[tuple[str, str, str | None]]:
    """(agent id, model id, model name) of every selected run."""
    return [
        (entry["id"], model_id(model), model)
        for entry in selected_entries(section)
        for model in (entry.get("models") or [None])
    ]


def find_run(section: Mapping, agent: str, model: str) -> tuple[dict, str | None]:
    """The agent entry and model name of a (agent id, model id) pair."""
    for entry in agent_entries(section):
        for name in entry.get("models") or [None]:
            if entry["id"] == agent and model_id(name) == model:
                return entry, name
    raise ConfigError(f"no agent '{agent}' with model '{model}' in agents.agents")


def check_gate_agents(section: Mapping) -> None:
    ids = [e["id"] for e in agent_entries(section)]
    for role in ("reference", "null"):
        wanted = section["gate"][role]
        if wanted not in ids:
            raise ConfigError(
                f"agents.gate.{role} is '{wanted}' but no entry of agents.agents has that id "
                f"(ids: {', '.join(ids)}); add {{name: {wanted}}} to agents.agents."
            )


def trial_path(task: str, agent: str, model: str, attempt: int, name: str = "trial.json") -> str:
    return f"{RESULTS}/trials/{task}/{agent}/{model}/{attempt}/{name}"


def near_miss_path(task: str, near_miss: str, name: str = "trial.json") -> str:
    """Where the trial of a task's near miss (run by the oracle agent as the reference) is recorded.

    >>> near_miss_path("gmx-solvate-ions", "no-posre-itp")
    'results/agents/near_misses/gmx-solvate-ions/no-posre-itp/trial.json'
    """
    return f"{RESULTS}/near_misses/{task}/{near_miss}/{name}"


def trial_priority(agent_timeout_s: float | None, null_agent: bool = False, default_timeout_s: float = 900.0) -> int:
    """Snakemake priority of one trial or near miss: the longer the task allows its agent, the earlier it starts.

    The suite runs a few trials at once on few cores; started in the DAG's order, a 6-minute trial can begin late
    and run alone at the end. The agent timeout of task.toml (minutes) stands in for the trial's cost (longest
    first); the do-nothing agent's trials cost the same short while on every task, so they go last and fill the
    gaps at the end.

    >>> trial_priority(2400), trial_priority(None), trial_priority(3600, null_agent=True)
    (40, 15, 0)
    """
    if null_agent:
        return 0
    return max(1, int((agent_timeout_s or default_timeout_s) // 60))
