"""The agent page's sections about the agents: bottom line, leaderboard, breakdown by difficulty and category,
cost against success, trial outcomes (registered in that order; :mod:`westbench.report.agents_results`)."""

from __future__ import annotations

import pandas as pd
from markupsafe import Markup

from westbench.report.agents_results import (
    RULE,
    AgentResults,
    agent_label,
    figure,
    finite,
    interval,
    pass_rate_ranks,
    register,
)
from westbench.report.bottom_line import rank_label
from westbench.report.html_tables import html_table

#: What every section about the agents' scores says when no agent ran on a task that passed the gate.
NO_LEADERBOARD = Markup(
    "<p>No agent ran on a gated task: there is no leaderboard (results/agents/gate.csv says which tasks failed "
    "the gate, and why).</p>"
)


@register("summary", "Bottom line")
def summary_section(results: AgentResults) -> Markup:
    board = results.leaderboard
    gated = int(board["gated_tasks"].iloc[0]) if len(board) and "gated_tasks" in board else 0
    if board.empty:
        return NO_LEADERBOARD
    text = Markup("<p>{} of {} tasks passed the oracle gate; every agent is scored on those {} tasks. {}</p>").format(
        gated, len(results.gate), gated, RULE
    )
    reference, null = results.gate_agents
    agents = results.agents()
    contenders = [i for i, (a, _) in enumerate(agents) if a not in results.gate_agents]
    if not contenders:
        return text + Markup(
            "<p><b>Only the gate's own agents ran</b> ({} must solve every task and {} none): they check the tasks, "
            "not an agent, so there is nothing to rank. Add agents under <code>agents.agents</code> "
            "(docs/agents.md) to compare them.</p>"
        ).format(reference, null)
    ranks = pass_rate_ranks(board.iloc[contenders].reset_index(drop=True))
    ranked = [(rank, i) for rank, i in zip(ranks, contenders) if not pd.isna(rank)]
    best = [i for rank, i in ranked if rank == min(r for r, _ in ranked)] if ranked else []
    if len(contenders) == 1:
        standing = Markup("<b>{} is the only agent under test</b>").format(agent_label(*agents[contenders[0]]))
    elif len(best) == len(contenders):
        standing = Markup("<b>The agents under test tie</b> ({}): no Pass Rate interval lies above another").format(
            ", ".join(agent_label(*agents[i]) for i in contenders)
        )
    else:
        names = ", ".join(agent_label(*agents[i]) for i in best)
        standing = Markup("<b>{} {}</b>").format(names, "tie for first" if len(best) > 1 else "ranks first")
    lines = []
    for i in best or contenders[:1]:
        row = board.iloc[i]
        against = "; ".join(a for a in (_against(board, agents, i, other) for other in (reference, null)) if a)
        rate = interval(row["pass_rate"], row["pass_rate_lo"], row["pass_rate_hi"])
        lines.append(
            Markup("Pass Rate {}; {}").format(rate, against)
            if len(contenders) == 1
            else Markup("{}: Pass Rate {}; {}").format(agent_label(*agents[i]), rate, against)
        )
    return (
        text
        + Markup("<p>{}{}.</p>").format(standing, Markup(": ") + Markup(". ").join(lines))
        + Markup("<p>{}</p>").format(_limit(board))
    )


def _against(board: pd.DataFrame, agents: list, i: int, gate_agent: str) -> str:
    """How agent ``i``'s Pass Rate stands against a gate agent's (the reference solution, the null agent)."""
    found = [j for j, (a, _) in enumerate(agents) if a == gate_agent]
    if not found:
        return ""
    a, b = board.iloc[i], board.iloc[found[0]]
    if finite(a["pass_rate_lo"]) and finite(b["pass_rate_hi"]) and a["pass_rate_lo"] > b["pass_rate_hi"]:
        return f"above {gate_agent}"
    if finite(a["pass_rate_hi"]) and finite(b["pass_rate_lo"]) and a["pass_rate_hi"] < b["pass_rate_lo"]:
        return f"below {gate_agent}"
    return f"not told apart from {gate_agent}"


def _limit(board: pd.DataFrame) -> str:
    """What limits the ranking: the trials behind each rate, and how the interval narrows with more of them."""
    trials = int(board["trials"].max()) if "trials" in board and len(board) else 0
    if not trials:
        return ""
    from scipy.stats import binomtest  # the leaderboard's intervals are Wilson's too

    low, high = binomtest(trials // 2, trials).proportion_ci(method="wilson")
    more_low, more_high = binomtest(2 * trials, 4 * trials).proportion_ci(method="wilson")
    return (
        f"What limits this: {trials} trials per agent (gated tasks x attempts); at a Pass Rate of 50 % that gives an "
        f"interval {100 * (high - low):.0f} points wide, and four times the trials (more tasks or attempts) about "
        f"{100 * (more_high - more_low):.0f}."
    )


@register("leaderboard", "Leaderboard")
def leaderboard_section(results: AgentResults) -> Markup:
    board = results.leaderboard
    if board.empty:
        return NO_LEADERBOARD
    ranks = pass_rate_ranks(board)
    rows = []
    for rank, record in zip(ranks, board.to_dict("records")):
        role = {results.gate_agents[0]: " (gate reference)", results.gate_agents[1]: " (gate null)"}
        rows.append(
            {
                "agent / model": agent_label(record["agent"], record["model"]) + role.get(record["agent"], ""),
                "rank": rank_label(rank, ranks),
                "tasks": record.get("tasks"),
                "trials": record.get("trials"),
                "Pass Rate": interval(record.get("pass_rate"), record.get("pass_rate_lo"), record.get("pass_rate_hi")),
                "Strict-Pass@1": interval(
                    record.get("strict_pass_at_1"), record.get("strict_pass_at_1_lo"), record.get("strict_pass_at_1_hi")
                ),
                "mean correctness": interval(
                    record.get("mean_correctness"), record.get("mean_correctness_lo"), record.get("mean_correctness_hi")
                ),
                "FC Avg. Score": interval(
                    record.get("fc_avg_score"), record.get("fc_avg_score_lo"), record.get("fc_avg_score_hi"), 1, ""
                ),
                "judged": interval(record.get("judged_share"), None, None),
            }
        )
    body = html_table(pd.DataFrame(rows))
    body += Markup(
        '<p class="note">Each value: the estimate [95 % interval] (Wilson for rates, a seeded bootstrap for means). '
        "Strict-Pass@1 is empty (—) while any first attempt is not judged; judged: the share of trials the rubric "
        "judge scored.</p>"
    )
    if "leaderboard_figure" in results.figures:
        body += figure(results.figures["leaderboard_figure"], "Rates and scores per agent and model; score per task.")
    return body


@register("breakdown", "By difficulty and category")
def breakdown_section(results: AgentResults) -> Markup:
    tags = results.by_tag
    if tags is None or tags.empty:
        return Markup("<p>No breakdown by tag was written (leaderboard_by_tag.csv is absent or empty).</p>")
    body = Markup("")
    for tag in [t for t in ("difficulty", "category") if t in set(tags["tag"])]:
        part = tags[tags["tag"] == tag]
        table = {}
        for record in part.to_dict("records"):
            row = table.setdefault(record["value"], {tag: record["value"], "tasks": record.get("tasks")})
            row[agent_label(record["agent"], record["model"])] = interval(
                record.get("pass_rate"), record.get("pass_rate_lo"), record.get("pass_rate_hi")
            )
        body += Markup('<h3>{}</h3><p class="note">Pass Rate [95 % interval] per {}.</p>{}').format(
            tag, tag, html_table(pd.DataFrame(list(table.values())))
        )
    return body or Markup("<p>The breakdown has neither a difficulty nor a category tag.</p>")


@register("cost", "Cost against success")
def cost_section(results: AgentResults) -> Markup:
    board = results.leaderboard
    if board.empty:
        return NO_LEADERBOARD
    rows = []
    for record in board.to_dict("records"):
        rows.append(
            {
                "agent / model": agent_label(record["agent"], record["model"]),
                "Pass Rate": interval(record.get("pass_rate"), record.get("pass_rate_lo"), record.get("pass_rate_hi")),
                "cost per task (USD)": _money(record.get("cost_usd_per_task")),
                "tokens in per task": _count(record.get("tokens_in_per_task")),
                "tokens out per task": _count(record.get("tokens_out_per_task")),
                "wall s per trial (median)": _count(record.get("wall_s_median")),
                "wall s per trial (90th pct.)": _count(record.get("wall_s_p90")),
            }
        )
    body = html_table(pd.DataFrame(rows))
    if not any(finite(v) and v > 0 for v in board.get("cost_usd_per_task", [])):
        return body + Markup(
            '<p class="note">No agent reported a cost (the gate agents run no model), so there is '
            "no cost to set against success.</p>"
        )
    if "cost_figure" in results.figures:
        body += figure(results.figures["cost_figure"], "Pass Rate (95 % interval) against cost per task.")
    return body


def _money(value) -> str:
    return f"{float(value):.3f}" if finite(value) else "not reported"


def _count(value) -> str:
    return f"{float(value):,.0f}" if finite(value) else "—"


@register("outcomes", "Trial outcomes")
def outcomes_section(results: AgentResults) -> Markup:
    board = results.leaderboard
    if board.empty:
        return NO_LEADERBOARD
    columns = [c for c in board.columns if c.startswith("n_")]
    used = [c for c in columns if board[c].fillna(0).astype(int).any()]
    frame = pd.DataFrame(
        {
            "agent / model": [agent_label(a, m) for a, m in results.agents()],
            **{c[2:].replace("_", " "): board[c].fillna(0).astype(int) for c in used},
        }
    )
    body = html_table(frame) + Markup(
        '<p class="note">Trials per outcome (statuses no trial had are left out). A timeout or an error is a '
        "failure whatever the verifier scored; a missing trial counts as a failure.</p>"
    )
    if "outcomes_figure" in results.figures:
        body += figure(results.figures["outcomes_figure"], "Trial outcomes per agent and model.")
    return body
