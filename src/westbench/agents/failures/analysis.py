"""The process and failure analysis step (rule ``agent_failures``): scorecards and trials to tables and figures.

Over the trials of the tasks that passed the oracle gate (as the leaderboard):

* ``process.csv``: one row per trial with a scorecard (``process.json``): coverage, process and the six
  capability scores (None where the task gives no opportunity, or not judged), its outcome and task score.
* ``process_summary.csv``: per agent and model, each capability's mean over the trials that cover it, the
  process (mean over trials) and the coverage-adjusted process (mean over (trial, covered capability) cells),
  each with a seeded bootstrap 95 % interval (:func:`westbench.agents.process.agent_profile`).
* ``process_correlation.csv``: process against task score, Spearman with a bootstrap interval, overall, per
  agent and per task (:mod:`~westbench.agents.failures.correlation`); the gate's agents are left out.
* ``failures.csv``: one row per trial (every agent, the gate's too): outcome, trajectory facts, breach.
* ``completion_claims.csv``, ``tool_errors.csv``, ``breaches.csv``: :mod:`~westbench.agents.failures.tables`.
* ``process.png``, ``failures.png``, ``breaches.png``: :mod:`~westbench.agents.failures.figures` (the breaches of
  the agents under test, or of the gate's agents when no other ran).

Examples
--------
>>> import json, tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> (folder / "t1").mkdir(); _ = (folder / "t1" / "instruction.md").write_text("## Deliverables\\n`/app/output/a.csv`")
>>> _ = (folder / "gate.json").write_text(json.dumps({"passed": ["t1"], "failed": {}}))
>>> _ = (folder / "trial.json").write_text(json.dumps({"task": "t1", "agent": "x", "model": "m", "attempt": 1,
...     "status": "failed", "correctness": 0.0, "difficulty": "easy", "category": "md"}))
>>> outputs = {name: folder / f"{name}.{'png' if name.endswith('figure') else 'csv'}" for name in ANALYSIS_OUTPUTS}
>>> tables = analyse_failures([folder / "trial.json"], [], [], folder / "gate.json", tasks=["t1"], tasks_dir=folder,
...     gate_agents=("oracle", "nop"), settings={"bootstrap_resamples": 100, "correlation_min_trials": 5}, seed=1,
...     outputs=outputs)
>>> tables["failures"].loc[0, ["outcome", "trajectory", "signature"]].tolist()
['not passed', 'absent', 'failed check']
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping, Sequence

import pandas as pd

from westbench.agents.atif import trajectory_facts
from westbench.agents.failures.breaches import breach, task_contract
from westbench.agents.failures.correlation import process_correlation
from westbench.agents.failures.figures import plot_breaches, plot_failures, plot_process
from westbench.agents.failures.modes import computed_checks, trial_modes
from westbench.agents.failures.tables import (
    breach_table,
    completion_table,
    outcome,
    task_score,
    tool_error_table,
    trial_row,
)
from westbench.agents.process import CAPABILITIES, agent_profile

#: What :func:`analyse_failures` writes: seven tables and three figures (their roles on the agent page).
ANALYSIS_OUTPUTS = (
    "process",
    "process_summary",
    "process_correlation",
    "failures",
    "completion",
    "tool_errors",
    "breaches",
    "process_figure",
    "failures_figure",
    "breaches_figure",
)
KEY = ("task", "agent", "model", "attempt")


def _by_key(paths: Sequence) -> dict[tuple, dict]:
    records = {}
    for path in paths:
        record = json.loads(Path(path).read_text())
        records[tuple(record.get(k) for k in KEY[:3]) + (int(record.get("attempt") or 1),)] = record
    return records


def process_row(trial: Mapping, card: Mapping) -> dict:
    """One row of ``process.csv``: a trial's scorecard beside its outcome and task score."""
    return {
        **{key: trial.get(key) for key in (*KEY, "difficulty", "category", "status")},
        "outcome": outcome(trial.get("status"), trial.get("correctness")),
        "task_score": task_score(trial.get("status"), trial.get("correctness")),
        "judged": bool(card.get("judged")),
        "coverage": card.get("coverage"),
        "process": card.get("process"),
        **{key: (card.get("capabilities") or {}).get(key, {}).get("score") for key in CAPABILITIES},
        "judge_errors": card.get("judge_errors", 0),
        "reason": card.get("reason", ""),
    }


def failure_row(trial: Mapping, card: Mapping | None, judge: Mapping | None, contract, computed) -> dict:
    """One row of ``failures.csv``: the trial's facts (from its scorecard when it has them), breach and modes."""
    facts = card["facts"] if card and "facts" in card else trajectory_facts(trial.get("trial_dir"))
    breached = breach(trial, judge, contract)
    passed = outcome(trial.get("status"), trial.get("correctness")) == "passed"
    return trial_row(trial, facts, breached | trial_modes(trial, breached, computed, passed))


def analyse_failures(
    trial_files: Sequence,
    judge_files: Sequence,
    process_files: Sequence,
    gate_file,
    *,
    tasks: Sequence[str],
    tasks_dir,
    gate_agents: Sequence[str],
    settings: Mapping,
    seed: int,
    outputs: Mapping,
) -> dict[str, pd.DataFrame]:
    """Write every table and figure of :data:`ANALYSIS_OUTPUTS` (module docstring); return the tables.

    ``settings``: ``bootstrap_resamples`` (``agents``) and ``correlation_min_trials`` (``agents.process``);
    ``seed``: the bootstrap's.
    """
    missing = [name for name in ANALYSIS_OUTPUTS if name not in outputs]
    if missing:
        raise ValueError(f"outputs lacks {missing}")
    gate = json.loads(Path(gate_file).read_text())
    gated = [task for task in tasks if task in gate["passed"]]
    trials = {key: t for key, t in _by_key(trial_files).items() if key[0] in gated}
    judges, cards = _by_key(judge_files), _by_key(process_files)
    contracts = {task: task_contract(Path(tasks_dir) / task) for task in gated}
    computed = {task: computed_checks(Path(tasks_dir) / task) for task in gated}
    failure_rows, process_rows = [], []
    for key in sorted(trials, key=lambda k: tuple(str(part) for part in k)):
        trial, card = trials[key], cards.get(key)
        failure_rows.append(failure_row(trial, card, judges.get(key), contracts[key[0]], computed[key[0]]))
        if card and card.get("assessed"):
            process_rows.append(process_row(trial, card))
    failures = pd.DataFrame(failure_rows)
    process = (
        pd.DataFrame(process_rows, columns=list(process_row({}, {})))
        if not process_rows
        else pd.DataFrame(process_rows)
    )
    resamples = settings["bootstrap_resamples"]
    judged = process[process["judged"].astype(bool)] if len(process) else process
    profiles = [
        agent_profile(group, seed, resamples).assign(agent=agent, model=model)
        for (agent, model), group in (judged.groupby(["agent", "model"], sort=True) if len(judged) else [])
    ]
    summary = (
        pd.concat(profiles, ignore_index=True)[["agent", "model", "measure", "trials", "cells", "estimate", "lo", "hi"]]
        if profiles
        else pd.DataFrame(columns=["agent", "model", "measure", "trials", "cells", "estimate", "lo", "hi"])
    )
    under_test = judged[~judged["agent"].isin(list(gate_agents))] if len(judged) else judged
    correlation = process_correlation(under_test, seed, resamples, settings["correlation_min_trials"])
    empty = pd.DataFrame(columns=["agent", "model", "outcome", "trials"])
    tables = {
        "process": process,
        "process_summary": summary,
        "process_correlation": correlation,
        "failures": failures,
        "completion": completion_table(failures) if len(failures) else empty,
        "tool_errors": tool_error_table(failures) if len(failures) else empty,
        "breaches": breach_table(failures)
        if len(failures)
        else pd.DataFrame(columns=["agent", "model", "tag", "value"]),
    }
    for name, table in tables.items():
        Path(outputs[name]).parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(outputs[name], index=False)
    plot_process(summary, process, correlation, outputs["process_figure"])
    plot_failures(tables["completion"], tables["tool_errors"], outputs["failures_figure"])
    breaches = tables["breaches"]
    under_test = breaches[~breaches["agent"].isin(list(gate_agents))] if len(breaches) else breaches
    plot_breaches(under_test if len(under_test) else breaches, outputs["breaches_figure"])
    return tables
