"""The agent page's sections about the tasks: a row per task with links to its trials, the oracle gate with its
near-miss and mutation catch rates, and mutation testing ("not run" until its files exist); registered after
:mod:`westbench.report.agents_sections`."""

from __future__ import annotations

from typing import Mapping

import pandas as pd
from markupsafe import Markup

from westbench.report.agents_results import (
    NOT_RUN,
    AgentResults,
    agent_label,
    finite,
    interval,
    register,
)
from westbench.report.html_tables import html_table


@register("tasks", "Per task")
def tasks_section(results: AgentResults) -> Markup:
    trials, gate = results.trials, results.gate.set_index("task")
    if trials is None or trials.empty:
        return Markup("<p>No trial was recorded.</p>")
    runs = list(dict.fromkeys(zip(trials["agent"], trials["model"])))
    scores = _mutation_scores(results)
    rows = []
    for task in sorted(set(gate.index) | set(trials["task"])):
        info = trials[trials["task"] == task]
        first = info.iloc[0] if len(info) else {}
        row = {
            "task": task,
            "difficulty": _text(first.get("difficulty")) if len(info) else "",
            "category": _text(first.get("category")) if len(info) else "",
            "gate": ("passed" if bool(gate.loc[task, "passed"]) else "failed") if task in gate.index else "—",
            "near misses caught": _caught(gate, task),
            "mutants killed": scores.get(task, NOT_RUN),
        }
        for agent, model in runs:
            cell = Markup("")
            for record in info[(info["agent"] == agent) & (info["model"] == model)].to_dict("records"):
                cell += _trial_cell(results, record)
            row[agent_label(agent, model)] = cell
        rows.append(row)
    return html_table(pd.DataFrame(rows)) + Markup(
        '<p class="note">Each trial: its status and verifier correctness, linked to its <code>trial.json</code>, '
        "with its Harbor folder (the agent's logs and the verifier's output) and the rule's log where they exist. "
        "Gate: the reference solution scored 1, the null agent 0 and every near miss below 1.</p>"
    )


def _text(value) -> str:
    return "" if value is None or value != value else str(value)


def _caught(gate: pd.DataFrame, task: str) -> str:
    if task in gate.index and "near_misses_run" in gate and not bool(gate.loc[task, "near_misses_run"]):
        commit = _text(gate.loc[task, "near_misses_recorded"]) if "near_misses_recorded" in gate else ""
        if commit:  # agents.gate.near_misses `changed`: the recorded full gate caught them at today's inputs
            return f"all caught by the recorded gate of {commit} (same inputs)"
        return "not run (agents.gate.near_misses)"  # the run's list named other tasks
    if task not in gate.index or "near_misses" not in gate or not int(gate.loc[task, "near_misses"] or 0):
        return "—"
    return f"{int(gate.loc[task, 'near_miss_caught'])} of {int(gate.loc[task, 'near_misses'])}"


def _trial_cell(results: AgentResults, record: Mapping) -> Markup:
    key = (record["task"], record["agent"], record["model"], int(record["attempt"]))
    path = results.trial_files.get(key)  # the page's trial inputs: every trial of trials.csv in the workflow
    correctness = record.get("correctness")
    text = f"{record['status']}" + (f" {float(correctness):.2f}" if finite(correctness) else "")
    links = [Markup('<a href="{}">{}</a>').format(results.link(path), text) if path else Markup.escape(text)]
    trial_dir = (results.trial_records.get(key) or {}).get("trial_dir")
    if trial_dir:
        links.append(Markup('<a href="{}">Harbor</a>').format(results.link(trial_dir)))
    if results.trial_log:
        log = results.trial_log.format(task=key[0], agent=key[1], model=key[2], attempt=key[3])
        links.append(Markup('<a href="{}">log</a>').format(results.link(log)))
    return Markup('<div class="trial">{}</div>').format(Markup(" · ").join(links))


def _mutation_scores(results: AgentResults) -> dict[str, str]:
    """Per task, "killed of mutants" from mutation_score.csv, else from gate.csv's mutation columns."""
    score = results.mutation_score
    if score is not None and len(score):
        return {r["task"]: f"{int(r['killed'])} of {int(r['mutants'])}" for r in score.to_dict("records")}
    gate = results.gate
    if {"mutation_killed", "mutation_total"} <= set(gate.columns):
        return {
            r["task"]: f"{int(r['mutation_killed'])} of {int(r['mutation_total'])}"
            for r in gate.to_dict("records")
            if finite(r["mutation_total"])
        }
    return {}


@register("gate", "The oracle gate")
def gate_section(results: AgentResults) -> Markup:
    gate = results.gate
    reference, null = results.gate_agents
    passed = int(gate["passed"].astype(bool).sum())
    body = Markup(
        "<p>{} of {} tasks passed the gate: the reference solution ({}) scored 1, the null agent ({}) 0, and every "
        "near miss shipped with the task (a plausible wrong solution) below 1. Only those tasks count on the "
        "leaderboard.</p>"
    ).format(passed, len(gate), reference, null)
    rate = (results.gate_summary or {}).get("near_miss_catch_rate") or {}
    if rate.get("near_misses"):
        body += Markup("<p><b>Near-miss catch rate:</b> {} of {} caught ({}) over {} tasks in this run.").format(
            rate.get("caught"),
            rate.get("near_misses"),
            interval(rate.get("catch_rate"), None, None),
            rate.get("tasks_with_near_misses"),
        )
    else:
        body += Markup("<p><b>Near-miss catch rate:</b> no near miss ran in this run.")
    recorded = [_text(v) for v in gate.get("near_misses_recorded", pd.Series("", index=gate.index))]
    if any(recorded):  # agents.gate.near_misses `changed`: not rerun, and said so
        commits = sorted({commit for commit in recorded if commit})
        body += Markup(
            " The near misses of {} more tasks were not rerun: the recorded full gate ({}) caught all of them at "
            "the same task files, near misses and trial environment (agents.gate.near_misses: changed)."
        ).format(sum(map(bool, recorded)), ", ".join(commits))
    body += Markup("</p>")
    body += Markup("<p><b>Mutation catch rate:</b> {}.</p>").format(_mutation_rate(results))
    failed = gate[~gate["passed"].astype(bool)]
    if len(failed):
        body += Markup("<h3>Tasks that failed the gate</h3>") + html_table(failed[["task", "reason"]])
    missed = gate[[_text(v) != "" for v in gate.get("near_miss_missed", pd.Series("", index=gate.index))]]
    if len(missed):
        body += Markup("<h3>Near misses the verifier passed</h3>") + html_table(
            missed[["task", "near_miss_missed", "near_miss_max"]]
        )
    return body + _resolution(results)


def _resolution(results: AgentResults) -> Markup:
    """Each task's resolution (gate.json): every numeric requirement's window and the smallest mistake it catches,
    so that "caught" and "killed" above read with their size."""
    resolution = (results.gate_summary or {}).get("resolution") or {}
    rows = [
        {"task": task, "requirement": row["item"], "window": row["window"], "smallest mistake": row["smallest_mistake"]}
        for task, items in sorted(resolution.items())
        for row in items
    ]
    if not rows:
        return Markup("<p><b>Resolution:</b> no task states one (gate.json has no resolution).</p>")
    return Markup(
        "<details><summary><b>Resolution:</b> {} numeric requirements over {} tasks, each with the window its "
        "verifier allows and the smallest plausible mistake that window excludes (the tasks' contract.toml)"
        "</summary>{}</details>"
    ).format(len(rows), len(resolution), html_table(pd.DataFrame(rows)))


def _mutation_rate(results: AgentResults) -> str:
    score = results.mutation_score
    if score is not None and len(score):
        killed, total = int(score["killed"].sum()), int(score["mutants"].sum())
    elif {"mutation_killed", "mutation_total"} <= set(results.gate.columns) and results.gate[
        "mutation_total"
    ].notna().any():
        killed = int(results.gate["mutation_killed"].fillna(0).sum())
        total = int(results.gate["mutation_total"].fillna(0).sum())
    else:
        return f"{NOT_RUN} (no mutation testing results in this folder)"
    return f"{killed} of {total} mutants killed ({interval(killed / total if total else None, None, None)})"


@register("mutation", "Mutation testing")
def mutation_section(results: AgentResults) -> Markup:
    score, mutants = results.mutation_score, results.mutation
    if score is None and mutants is None:
        return Markup(
            "<p>Mutation testing: not run. Its results (<code>mutation.csv</code>, <code>mutation_score.csv</code> in "
            "<code>results/agents/</code>) appear here when they exist.</p>"
        )
    body = Markup("")
    if score is not None:
        body += Markup("<p>Per task: mutants of the verifier's reference, killed (caught) or survived.</p>")
        body += html_table(score)
    if mutants is not None and "killed" in mutants:
        survivors = mutants[~mutants["killed"].astype(bool)]
        if len(survivors):
            body += Markup("<h3>Surviving mutants</h3>") + html_table(survivors)
        else:
            body += Markup("<p>Every mutant was killed.</p>")
    return body
