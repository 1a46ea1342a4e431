"""The agent page's sections on process and failure: the process scorecards (capability profiles with their
coverage, process against task score) and the failure analysis (completion language by outcome, tool errors,
breach signatures by difficulty and category); registered before the sections about the tasks. Each says "not
run" when the failure analysis's files are absent (:mod:`westbench.agents.failures`)."""

from __future__ import annotations

import pandas as pd
from markupsafe import Markup

import westbench.report.agents_sections  # noqa: F401 (registered before these sections)
import westbench.report.agents_tasks  # noqa: F401 (registered first: these sections go before its "tasks")
from westbench.agents.failures.breaches import SIGNATURES
from westbench.agents.failures.modes import MODE_RULES, MODES
from westbench.agents.process.capabilities import CAPABILITIES
from westbench.report.agents_results import NOT_RUN, AgentResults, agent_label, figure, finite, interval, register
from westbench.report.html_tables import html_table

AGGREGATION = (
    "Each task's <code>process.toml</code> is its row of the opportunity matrix: which of the six capabilities the "
    "task gives an opportunity for. A covered capability is scored from the shared items and the task's own, each "
    "judged on 0/1/2 anchors (0, 0.5, 1) by the hardened judge over its repeats; a capability without an opportunity "
    "is excluded, never scored 0. A trial's <b>coverage</b> is the share of the six capabilities covered and its "
    "<b>process</b> the mean of the covered capabilities' scores. Per agent: each capability's mean over the trials "
    "that cover it; <b>process</b>, the mean over trials; and the <b>coverage-adjusted</b> process, the mean over "
    "every (trial, covered capability) cell, i.e. trials weighted by their coverage, so that trials whose tasks "
    "cover one capability cannot carry the score. Scores &times;100, seeded bootstrap 95 % intervals over trials."
)


def _score(value, low, high) -> str:
    return interval(value, low, high, scale=100.0, unit="")


def _not_run(what: str) -> Markup:
    return Markup(
        "<p>{}: {}. Its files (<code>process_summary.csv</code>, <code>failures.csv</code> and the others of rule "
        "<code>agent_failures</code> in <code>results/agents/</code>) appear here when they exist.</p>"
    ).format(what, NOT_RUN)


@register("process", "Process scorecards", before="tasks")
def process_section(results: AgentResults) -> Markup:
    summary, cards = results.tables.get("process_summary"), results.tables.get("process_table")
    if summary is None or cards is None:
        return _not_run("Process scorecards")
    body = Markup("<p>{}</p>").format(Markup(AGGREGATION))
    judged = cards[cards["judged"].astype(bool)] if len(cards) else cards
    if cards.empty:
        reference, null = results.gate_agents
        return body + Markup(
            "<p><b>No trial has a scorecard:</b> only the gate's agents ran ({} and {} run a script or nothing; "
            "<code>agents.process.assess_gate_agents</code> scores them too).</p>"
        ).format(reference, null)
    if judged.empty:
        return body + Markup(
            "<p><b>{} scorecards, none judged:</b> no judge endpoint was set, so every item is <i>not judged</i> "
            "(never passed). Set <code>WESTBENCH_JUDGE_MODEL</code>, <code>WESTBENCH_JUDGE_BASE_URL</code> and "
            "<code>WESTBENCH_JUDGE_API_KEY</code> and rerun <code>agent_process</code> (docs/agents.md).</p>"
        ).format(len(cards))
    rows = []
    for (agent, model), group in summary.groupby(["agent", "model"], sort=False):
        measures = group.set_index("measure")
        trials = judged[(judged["agent"] == agent) & (judged["model"] == model)]
        row = {
            "agent / model": agent_label(agent, model),
            "judged trials": len(trials),
            "mean coverage": f"{trials['coverage'].mean():.2f}" if len(trials) else "—",
        }
        for key in (*CAPABILITIES, "process", "process_coverage_adjusted"):
            name = {"process_coverage_adjusted": "coverage-adjusted"}.get(key, key.replace("_", " "))
            if key in measures.index:
                m = measures.loc[key]
                row[name] = _score(m["estimate"], m["lo"], m["hi"]) + (
                    f" (n={int(m['trials'])})" if key in CAPABILITIES else ""
                )
            else:
                row[name] = "—"
        rows.append(row)
    body += html_table(pd.DataFrame(rows))
    body += Markup(
        '<p class="note">n: judged trials whose task gives the capability an opportunity; "—": none does. '
        "{} of {} scorecards judged.</p>"
    ).format(len(judged), len(cards))
    body += _correlation(results.tables.get("process_correlation"))
    if "process_figure" in results.figures:
        body += figure(results.figures["process_figure"], "Process per capability; process against task score.")
    return body


def _correlation(table: pd.DataFrame | None) -> Markup:
    if table is None or table.empty:
        return Markup("")
    body = Markup(
        "<h3>Process against task score</h3><p>Spearman's rho of each judged trial's process against its task score "
        "(correctness; 0 for a trial the agent did not finish: the rubric judge is left out so that process is not "
        "correlated with itself), with a seeded bootstrap 95 % interval over trials; the gate's agents are left "
        "out.</p>"
    )
    shown = table[(table["scope"] != "task") | table["spearman"].map(finite)]
    rows = [
        {
            "scope": record["scope"],
            "group": record["group"],
            "trials": int(record["trials"]),
            "Spearman rho [95 %]": (
                f"{record['spearman']:.2f}"
                + (f" [{record['lo']:.2f}, {record['hi']:.2f}]" if finite(record["lo"]) else " [no interval]")
                if finite(record["spearman"])
                else "—"
            ),
            "note": record["note"] if isinstance(record["note"], str) else "",
        }
        for record in shown.to_dict("records")
    ]
    body += html_table(pd.DataFrame(rows))
    few = table[(table["scope"] == "task") & ~table["spearman"].map(finite)]
    if len(few):
        minimum = int(table["min_trials"].iloc[0]) if "min_trials" in table else None
        body += Markup(
            '<p class="note">{} tasks have no rho of their own (fewer than {} judged trials, or a constant '
            "process or score): more attempts per task give each task its own.</p>"
        ).format(len(few), minimum)
    return body


def _rate(record, column: str) -> str:
    return interval(record.get(column), record.get(f"{column}_lo"), record.get(f"{column}_hi"))


@register("failures", "Failure analysis", before="tasks")
def failures_section(results: AgentResults) -> Markup:
    completion, tools, breaches = (results.tables.get(k) for k in ("completion", "tool_errors", "breaches"))
    if completion is None or tools is None or breaches is None:
        return _not_run("Failure analysis")
    body = Markup(
        "<p>From Harbor's trajectory of every trial (<code>agent/trajectory.json</code>; an agent that writes none, "
        "such as the oracle, has no final message or tool results) and the verifier's checks. "
        "<b>Passed</b>: the agent finished and every deterministic check passed.</p><h3>Completion language</h3>"
        "<p>The final agent message, by stated English patterns (<code>westbench.agents.completion</code>): "
        "<i>claims</i> completion, claims it while stating a limitation (<i>hedged</i>), reports a "
        "<i>limitation</i> only, or neither (<i>silent</i>). Claim rate: claims and hedged; completion call: the last "
        "step called the agent's completion tool (Terminus-2's <code>mark_task_complete</code>).</p>"
    )
    if completion.empty:
        body += Markup("<p>No trial left a trajectory.</p>")
    else:
        body += html_table(pd.DataFrame(_completion_rows(completion)))
    body += Markup(
        "<h3>Tool errors</h3><p>Per 100 tool results (a result of a tool run; completion calls are not tool runs): "
        "an error by the agent's structured flag or exit code where it records one, else by an error signature in "
        "the output that no earlier result showed (a traceback or exception, <code>command not found</code>, "
        "<code>No such file or directory</code>, a non-zero exit status, ...; <code>westbench.agents.atif</code>). "
        "Wilson intervals treat results as independent (a run's errors cluster: the real uncertainty is larger). "
        "Recovered: trials with an error whose last tool result was not one.</p>"
    )
    if tools.empty:
        body += Markup("<p>No trial left a trajectory.</p>")
    else:
        body += html_table(pd.DataFrame(_tool_error_rows(tools)))
    if "failures_figure" in results.figures and not (completion.empty and tools.empty):
        body += figure(results.figures["failures_figure"], "Completion claims and tool errors by outcome.")
    return body + _breaches(results, breaches)


def _completion_rows(completion: pd.DataFrame) -> list[dict]:
    """The completion-language table's rows: per agent/model and outcome, the final messages' classes and rates."""
    return [
        {
            "agent / model": agent_label(r["agent"], r["model"]),
            "outcome": r["outcome"],
            "trials": int(r["trials"]),
            **{
                n: int(r.get(n.replace(" ", "_"), 0))
                for n in ("claims", "hedged", "limitation", "silent", "no message")
            },
            "claim rate": _rate(r, "claim_rate"),
            "completion call": _rate(r, "completion_call_rate"),
        }
        for r in completion.to_dict("records")
    ]


def _tool_error_rows(tools: pd.DataFrame) -> list[dict]:
    """The tool-error table's rows: per agent/model and outcome, results, errors (per 100, Wilson) and recoveries."""
    return [
        {
            "agent / model": agent_label(r["agent"], r["model"]),
            "outcome": r["outcome"],
            "trials": int(r["trials"]),
            "tool results": int(r["tool_results"]),
            "tool errors": int(r["tool_errors"]),
            "per 100 results": interval(
                r.get("errors_per_100_results"),
                r.get("errors_per_100_results_lo"),
                r.get("errors_per_100_results_hi"),
                scale=1.0,
                unit="",
            ),
            "trials with an error": int(r["trials_with_error"]),
            "recovered": int(r["recovered"]),
        }
        for r in tools.to_dict("records")
    ]


def _breaches(results: AgentResults, breaches: pd.DataFrame) -> Markup:
    body = Markup(
        "<h3>Contract-breach signatures</h3><p>Of the trials not passed: <i>missing deliverable</i> (a deliverable "
        "the contract names was not delivered and a failed check names it), <i>failed check</i> (a deterministic "
        "check failed), <i>judge shortfall</i> (the rubric judge found a criterion not met; of the judged trials "
        "only). The flags overlap; the signature is the first that applies of: {}.</p>"
    ).format(", ".join(SIGNATURES))
    body += Markup("<p>The published failure modes (MDGym), the first that applies: {}.</p>").format(
        Markup("; ").join(Markup("<i>{}</i>: {}").format(mode, MODE_RULES[mode]) for mode in MODES)
    )
    failed = breaches[breaches["not_passed"] > 0] if len(breaches) else breaches
    if failed.empty:
        return body + Markup("<p>No trial failed.</p>")
    under_test = failed[~failed["agent"].isin(results.gate_agents)]
    shown = under_test if len(under_test) else failed
    gate = ", ".join(results.gate_agents)
    if under_test.empty:
        body += Markup('<p class="note">Only the gate\'s agents ({}) ran: their signatures.</p>').format(gate)
    elif len(under_test) < len(failed):
        body += Markup(
            '<p class="note">The gate\'s agents ({}) are left out of the tables below; their signatures are in '
            "<code>breaches.csv</code>.</p>"
        ).format(gate)
    for tag in ("difficulty", "category"):
        part = shown[shown["tag"] == tag]
        if part.empty:
            continue
        rows = []
        for r in part.to_dict("records"):
            judged = int(r.get("judged_not_passed", 0))
            rows.append(
                {
                    "agent / model": agent_label(r["agent"], r["model"]),
                    tag: r["value"],
                    "trials": int(r["trials"]),
                    "not passed": int(r["not_passed"]),
                    "missing deliverable": f"{int(r['missing_deliverable'])} ({_rate(r, 'missing_deliverable_rate')})",
                    "failed check": f"{int(r['failed_check'])} ({_rate(r, 'failed_check_rate')})",
                    "judge shortfall": f"{int(r['judge_shortfall'])} of {judged} judged" if judged else "not judged",
                    "failure modes": ", ".join(
                        f"{mode} {int(r.get('mode_' + mode.replace(' ', '_'), 0))}" for mode in MODES[:-1]
                    ),
                }
            )
        body += Markup("<h4>By {}</h4>").format(tag) + html_table(pd.DataFrame(rows))
    if "breaches_figure" in results.figures:
        body += figure(results.figures["breaches_figure"], "Breach signature of every trial not passed.")
    return body
