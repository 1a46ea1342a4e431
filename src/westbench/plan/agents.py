"""The agent benchmark's part of the plan: which tasks, agents, models and attempts take part, and the trials.

Built with the rest of the plan (:meth:`westbench.plan.Plan.from_config`), so a bad ``agents`` section (an
unknown gate agent, two agents with one id, a selected task or agent that does not exist, a malformed near miss)
stops the workflow's parse with a :class:`~westbench.errors.ConfigError` naming the key and the fix. Paths come
from :class:`westbench.plan.layout.AgentsLayout`; what each job reads of the section from
:class:`westbench.plan.params.Params` (``agent_*`` methods).

Examples
--------
>>> section = {"agents": [{"name": "oracle", "id": None, "models": []},
...                       {"name": "terminus-2", "id": None, "models": ["openai/gpt-4o", "x/y"]}], "attempts": 2,
...            "gate": {"reference": "oracle", "null": "nop"}}
>>> [(a, m) for a, m, _ in runs(section)]
[('oracle', 'none'), ('terminus-2', 'openai--gpt-4o'), ('terminus-2', 'x--y')]
>>> check_gate_agents(section)  # doctest: +NORMALIZE_WHITESPACE
Traceback (most recent call last):
...
westbench.errors.ConfigError: agents.gate.null is 'nop' but no entry of agents.agents has that id
(ids: oracle, terminus-2); add {name: nop} to agents.agents.
"""

from __future__ import annotations

import fnmatch
import re
from functools import cached_property
from pathlib import Path
from typing import Mapping

from westbench.agents.harbor import model_id
from westbench.agents.tasks import TaskError, load_task, mutation_files, near_misses, select_tasks, task_files
from westbench.agents.tasks import task_names as folder_task_names
from westbench.errors import ConfigError
from westbench.plan.layout import AgentsLayout
from westbench.plan.near_misses import REPOSITORY, near_miss_tasks, recorded_gate, recorded_near_misses


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
    raise ConfigError(
        f"no agent '{agent}' with model '{model}' in agents.agents: ask for the trials of a configured agent and model."
    )


def check_gate_agents(section: Mapping) -> None:
    """The gate's reference and null agents are entries of agents.agents (a ConfigError naming the fix if not)."""
    ids = [e["id"] for e in agent_entries(section)]
    for role in ("reference", "null"):
        wanted = section["gate"][role]
        if wanted not in ids:
            raise ConfigError(
                f"agents.gate.{role} is '{wanted}' but no entry of agents.agents has that id "
                f"(ids: {', '.join(ids)}); add {{name: {wanted}}} to agents.agents."
            )


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


class AgentsPlan:
    """The agent benchmark of one configuration: its tasks (agents.tasks_dir, relative to the working directory,
    filtered by agents.select.tasks), runs (agent, model), attempts, near misses and every trial's path.

    Parameters
    ----------
    config : mapping
        The validated config.
    layout : AgentsLayout
        Where the agent benchmark's files live.

    Raises
    ------
    ConfigError
        For a gate agent that is no entry, two entries with one id, a selected task or agent that does not exist
        or a malformed near miss, naming the key or file and the fix.
    """

    def __init__(self, config: Mapping, layout: AgentsLayout, root: str | Path = REPOSITORY):
        section = self.section = config["agents"]
        self.layout = layout
        check_gate_agents(section)
        self.tasks_dir = Path(section["tasks_dir"])
        #: The gate's reference agent (must score 1) and null agent (must score 0).
        self.reference, self.null = section["gate"]["reference"], section["gate"]["null"]
        self.gate_agents = [self.reference, self.null]
        try:
            names = folder_task_names(self.tasks_dir) if self.tasks_dir.is_dir() else []
            self.tasks = select_tasks(names, section["select"]["tasks"])
            self.runs = [(agent, model) for agent, model, _ in runs(section)]
            # Near misses (plausible wrong solutions) each task ships: run as the reference, gated below 1.
            #: The tasks whose near misses run, each with why (agents.gate.near_misses).
            gate = section["gate"]
            record = recorded_gate(gate, root) if gate["near_misses"] == "changed" and self.tasks else None
            self.near_miss_reasons = near_miss_tasks(gate, names, self.tasks, self.tasks_dir, root, record)
            self.near_miss_tasks = list(self.near_miss_reasons)
            #: The selected tasks whose near misses do not run because the recorded full gate caught them all at
            #: today's inputs, each with the commit of that gate (near_misses `changed` only).
            self.near_misses_recorded = recorded_near_misses(gate, self.tasks, self.near_miss_reasons, record)
            self.near_misses = {
                task: list(near_misses(self.tasks_dir / task)) if task in self.near_miss_tasks else []
                for task in self.tasks
            }
        except TaskError as exc:
            raise ConfigError(str(exc)) from None
        self.attempts = list(range(1, section["attempts"] + 1))

    # --- one task's files ----------------------------------------------------------------------------------------

    def task_dir(self, task: str) -> str:
        return str(self.tasks_dir / task)

    def task_files(self, task: str) -> tuple[str, ...]:
        """What a trial reads of its task (editing a near miss or the opportunity matrix reruns no trial)."""
        return task_files(self.tasks_dir / task)

    def mutation_files(self, task: str) -> tuple[str, ...]:
        return mutation_files(self.tasks_dir / task)

    def task_tomls(self) -> list[str]:
        return [str(self.tasks_dir / task / "task.toml") for task in self.tasks]

    def near_miss_dir(self, task: str, near_miss: str) -> str:
        return str(self.tasks_dir / task / "near_misses" / near_miss)

    def near_miss_files(self, task: str, near_miss: str) -> list[str]:
        """A near miss's trial reruns when the task or that near miss changes (not when another near miss does)."""
        folder = Path(self.near_miss_dir(task, near_miss))
        return list(self.task_files(task)) + sorted(str(p) for p in folder.rglob("*") if p.is_file())

    def process_matrix(self, task: str) -> list[str]:
        """The task's opportunity matrix (process.toml) when it has one: editing it rescores its trials."""
        path = self.tasks_dir / task / "process.toml"
        return [str(path)] if path.is_file() else []

    # --- trials ----------------------------------------------------------------------------------------------------

    @staticmethod
    def near_miss_run() -> dict:
        """The "agent" of a near miss's trial: the oracle agent running the near miss as the reference solution."""
        return {"agent": {"id": "near-miss", "name": "oracle"}, "model": None}

    @property
    def process_rubric(self) -> str:
        """The process scorecards' shared rubric (westbench.agents.process.SHARED_RUBRIC)."""
        from westbench.agents.process import SHARED_RUBRIC

        return str(SHARED_RUBRIC)

    def trial_run(self, agent: str, model: str) -> dict:
        """One trial's agent entry (without the agent's other models) and model name: adding an agent or a model
        reruns no other trial."""
        entry, name = find_run(self.section, agent, model)
        return {"agent": {key: value for key, value in entry.items() if key != "models"}, "model": name}

    @cached_property
    def timeouts(self) -> dict[str, float | None]:
        """The agent timeout each task.toml gives (None when unset or when the task does not load: its trial
        says why)."""

        def timeout(task):
            try:
                return load_task(self.tasks_dir / task).agent_timeout_s
            except TaskError:
                return None

        return {task: timeout(task) for task in self.tasks}

    def priority(self, task: str, agent: str | None = None) -> int:
        """Longest trials first (:func:`trial_priority`); the null agent's trials last."""
        return trial_priority(
            self.timeouts.get(task),
            null_agent=agent == self.null,
            default_timeout_s=self.section["default_agent_timeout_s"],
        )

    def trials(self, tasks=None, runs=None, name: str = "trial.json") -> list[str]:
        """Every trial's file (trial.json, judge.json, process.json) of the tasks and runs (all when None)."""
        return [
            self.layout.trial(t, a, m, k, name)
            for t in (tasks or self.tasks)
            for a, m in (runs or self.runs)
            for k in self.attempts
        ]

    def gate_trials(self) -> list[str]:
        """The gate's own trials: the reference and null agents once per task."""
        return [self.layout.trial(t, a, "none", 1) for t in self.tasks for a in self.gate_agents]

    def near_miss_trials(self, task: str | None = None) -> list[str]:
        """The near misses' trials (of one task, which need not be selected, or of every task)."""
        tasks = self.tasks if task is None else [task]
        return [self.layout.near_miss(t, name) for t in tasks for name in self.near_misses.get(t, [])]

    def process_runs(self) -> list[tuple[str, str]]:
        """The (agent, model) runs whose trials get a process scorecard: the agents under test, and the gate's own
        when agents.process.assess_gate_agents."""
        assess_gate = self.section["process"]["assess_gate_agents"]
        return [run for run in self.runs if assess_gate or run[0] not in self.gate_agents]

    def process_trials(self, task: str | None = None) -> list[str]:
        """Every process.json the failure analysis reads (of one selected task, or of all)."""
        tasks = self.tasks if task is None else [t for t in self.tasks if t == task]
        return [
            self.layout.trial(t, a, m, k, "process.json")
            for t in tasks
            for a, m in self.process_runs()
            for k in self.attempts
        ]

    # --- mutation testing and the page ----------------------------------------------------------------------------

    def mutation_results(self) -> list[str]:
        return [self.layout.mutation(task) for task in self.tasks]

    def mutation_scores(self) -> list[str]:
        """The gate's mutation scores (none when agents.gate.mutation is off)."""
        return [self.layout.file("mutation_score.csv")] if self.section["gate"]["mutation"] else []

    def page_optional_inputs(self) -> dict[str, str]:
        """The mutation files the page shows, as inputs only when the gate runs mutation testing
        (agents.gate.mutation): otherwise the page reads them when present, and an `agents` run never starts the
        hours of mutation testing to draw the page."""
        from westbench.report.agents_page import FILES

        if not self.mutation_scores():
            return {}
        return {role: self.layout.file(FILES[role]) for role in ("mutation", "mutation_score")}
