"""The report's first section, the bottom line: per protein, the engines' standing in one sentence (or that this run
cannot rank them, and why), the engines that failed a sanity check, what run would rank them, what the run could
detect, what limits it, the ranking table, the forest plot and the verdict heatmap (engines x distributions).

The claims come from :mod:`westbench.report.claims` (the rule: :mod:`westbench.report.bottom_line`; what may rank:
:mod:`westbench.report.evidence`); this module only lays them out.

Examples
--------
>>> import pandas as pd
>>> w1 = pd.DataFrame({"protein": ["p", "p"], "engine": ["a", "b"], "weighting": ["we", "we"],
...     "tic0": [0.2, 0.9], "tic0_ci_low": [0.1, 0.7], "tic0_ci_high": [0.3, 1.1], "tic0_floor_high": [0.25, 0.25],
...     "tic0_verdict": ["within noise", "separated"], "tic0_note": ["", ""]})
>>> html = overview_html(w1, w1.iloc[0:0], ["we"], {"p": 3})
>>> "Overall: a ranks 1; b ranks 2 (below a)." in html, "Ranking rule" in html, 'class="heat v-separated"' in html
(True, True, True)
"""

from __future__ import annotations

import base64
from typing import Mapping, Sequence

import pandas as pd
from markupsafe import Markup

from westbench.report import bottom_line
from westbench.report.bottom_line import DETERMINED, RULE, label, rank_label
from westbench.report.cells import MARKS, MEANINGS, decimals, number
from westbench.report.claims import summary
from westbench.report.evidence import BIASED, PINNED, UNRESOLVED
from westbench.report.forest import forest_png

#: The heatmap's colour classes (CSS in the report's template) by verdict; "" is a value without a verdict.
HEAT = {"separated": "v-separated", "within noise": "v-within-noise", "undetermined": "v-undetermined", "": "v-none"}
#: The class of a within-noise cell on a distribution the run does not resolve, and of a KL that is no score.
UNRESOLVED_CLASS, PINNED_CLASS = "v-unresolved", "v-pinned"
HEADING = "Bottom line: which engine is closest to the ground truth?"


def _short(value: float) -> str:
    return number(value, decimals(value, 2)) if value == value else ""


def heat_cell(record: Mapping, ranks: Sequence) -> Markup:
    """One heatmap cell: the value and its rank on this divergence, coloured by verdict; interval, floor and
    note on hover."""
    verdict = record["verdict"] if record["verdict"] in HEAT else ""
    why = str(record.get("excluded") or "")
    css = HEAT[verdict]
    if verdict == "within noise" and (record.get("unresolved") or why.startswith(UNRESOLVED)):
        css = UNRESOLVED_CLASS
    if record["value"] != record["value"]:
        text = Markup("n/e")
    elif why.startswith((PINNED, BIASED)):  # a KL that is no score
        text, css = Markup("pinned" if why.startswith(PINNED) else "bias"), PINNED_CLASS
    else:
        rank = rank_label(record["rank"], ranks)
        text = Markup("{}<br><small>{}</small>").format(
            _short(record["value"]), "" if rank == "not ranked" else f"#{rank}"
        )
    title = f"{label(record['metric'], record['distribution'])} of {record['engine']}: "
    if record["value"] == record["value"]:
        title += f"{record['value']:.4g}"
        if record["low"] == record["low"] and record["high"] == record["high"]:
            title += f" [{record['low']:.4g}, {record['high']:.4g}]"
    else:
        title += "not estimable"
    if record["floor_high"] == record["floor_high"]:
        title += f"; noise floor ≤ {record['floor_high']:.4g}"
    title += f"; {MEANINGS.get(verdict, 'no verdict')}"
    if record["note"]:
        title += f" ({record['note']})"
    if css == UNRESOLVED_CLASS:
        title += f"; read: {UNRESOLVED} (this run's controls separated no known-bad engine here)"
    if why:
        title += f"; not ranked: {why}"
    mark = MARKS.get(verdict, "") if css != PINNED_CLASS else ""
    return Markup('<td class="heat {}" title="{}">{} {}</td>').format(css, title, text, mark)


def heatmap_html(values: pd.DataFrame, engines: Sequence[str], metric: str) -> Markup:
    """The verdict heatmap of ``metric``: a row per engine (``engines``' order), a column per distribution."""
    rows = values[values["metric"] == metric]
    if rows.empty:
        return Markup("")
    names = list(dict.fromkeys(rows["distribution"]))
    head = Markup("").join(Markup("<th>{}</th>").format(bottom_line.LABELS.get(name, name)) for name in names)
    body = Markup("")
    for engine in engines:
        cells = Markup("")
        for name in names:
            found = rows[(rows["engine"] == engine) & (rows["distribution"] == name)]
            ranks = list(rows.loc[rows["distribution"] == name, "rank"])
            cells += (
                heat_cell(found.iloc[0].to_dict(), ranks) if len(found) else Markup('<td class="heat v-none"></td>')
            )
        body += Markup("<tr><th>{}</th>{}</tr>\n").format(engine, cells)
    return Markup(
        '<table class="heatmap"><thead><tr><th>{} against the ground truth</th>{}</tr></thead>\n'
        "<tbody>{}</tbody></table>"
    ).format(metric, head, body)


def ranking_html(overall: pd.DataFrame, values: pd.DataFrame, flags: Mapping[str, str] | None = None) -> Markup:
    """The overall ranking: rank, the engines each one ranks above and below, on how many divergences it can rank
    (determined and not left out), how many are separated; a flagged engine (a CG model that failed to learn) is
    named with its flag."""
    flags = dict(flags or {})
    ranks = list(overall["rank"])
    weighting = values.drop_duplicates("engine").set_index("engine")["weighting"]
    kept = values["excluded"] == "" if "excluded" in values else pd.Series(True, index=values.index)
    body = Markup("")
    for record in overall.to_dict("records"):
        mine = values["engine"] == record["engine"]
        separated = int((mine & (values["verdict"] == "separated")).sum())
        rankable = int((mine & values["verdict"].isin(DETERMINED) & kept).sum())
        name = Markup("{}").format(record["engine"])
        if flags.get(record["engine"]):
            name += Markup(' <span class="flag">({})</span>').format(flags[record["engine"]])
        body += Markup(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{} of {}</td><td>{}</td><td>{}</td></tr>\n"
        ).format(
            rank_label(record["rank"], ranks),
            name,
            ", ".join(record["above"]) or "—",
            ", ".join(record["below"]) or "—",
            rankable,
            record["divergences"],
            separated,
            weighting.get(record["engine"], ""),
        )
    return Markup(
        '<table class="ranking"><thead><tr><th>rank</th><th>engine</th><th>ranks above</th><th>ranks below</th>'
        "<th>values it can rank on</th><th>separated from the floor</th><th>weighting</th></tr></thead>\n"
        "<tbody>{}</tbody></table>"
    ).format(body)


def legend_html() -> Markup:
    """The heatmap's legend: a coloured swatch per verdict."""
    items = Markup("").join(
        Markup('<span class="heat {}">{} {}</span> ').format(HEAT[name], MARKS[name], name) for name in MARKS
    )
    return Markup(
        '<p class="note">Heatmap: each cell is the value and, under it, the engine\'s rank on that divergence '
        "(# with = for a tie; none where not ranked; n/e: not estimable), coloured by verdict: {} "
        '<span class="heat v-none">no verdict</span>; <span class="heat {}">≈ {}</span>: within noise on a '
        "distribution this run's controls show it cannot resolve; "
        '<span class="heat {}">pinned</span>, <i>bias</i>: a KL that is no score (pinned by the bin floor, or mostly '
        "the estimator's bias). Hover a cell for its interval, floor, any note and why it is not ranked.</p>"
    ).format(items, UNRESOLVED_CLASS, UNRESOLVED, PINNED_CLASS)


def overview_html(
    w1: pd.DataFrame,
    kl: pd.DataFrame,
    weightings: Sequence[str],
    designs: Mapping[str, Mapping | int],
    agents_link: str | None = "agents.html",
    evidence: Mapping | None = None,
    plans: Mapping | None = None,
) -> Markup:
    """The bottom-line section's HTML (see the module's description); ``designs``: per protein, how each engine's
    noise floor was made (:class:`westbench.report.bottom_line.FloorDesign`) or only its ground-truth runs;
    ``evidence`` and ``plans``: what the run's records say and the published ground truth per protein
    (:func:`westbench.report.claims.summary`)."""
    found = summary(w1, kl, weightings, designs, evidence, plans)
    body = Markup('<h2 id="bottom-line">{}</h2>\n<p>{}</p>\n').format(HEADING, RULE)
    if not found:
        return body + Markup(
            "<p>No engine was scored against a ground truth in this run, so there is nothing to rank.</p>"
        )
    for protein, result in found.items():
        overall, values = result["overall"], result["values"]
        engines = list(overall["engine"])
        png = forest_png(values, engines, title=f"{protein}: W1 against the ground truth, 95 % intervals")
        sentences = Markup("").join(
            Markup('<p class="{}">{}</p>\n').format(css, text)
            for css, text in (
                ("why", result["why"]),
                ("flagged", result["flagged"]),
                ("failed", result["failed"]),
                ("shows", result["shows"]),
                ("would", result["would"]),
                ("detects", result["detects"]),
                ("limitation", result["limitation"].sentence),
            )
            if text
        )
        body += Markup(
            '<section class="protein-summary"><h3>{}</h3>\n<p class="standing"><b>{}</b></p>\n{}'
            '<div class="scroll">{}</div>\n'
            '<figure class="wide"><img src="data:image/png;base64,{}" alt="{}">\n<figcaption>{}</figcaption></figure>\n'
            '<div class="scroll">{}</div>\n<div class="scroll">{}</div>\n{}</section>\n'
        ).format(
            protein,
            result["standing"],
            sentences,
            ranking_html(overall, values, result["flags"]),
            base64.b64encode(png).decode("ascii"),
            f"Forest plot of W1 per distribution for {protein}",
            Markup(
                "Forest plot: per distribution, each engine's W1 against the ground truth (point: estimate; "
                "bar: 95 % interval; colour: verdict) beside the ground truth's noise floor at that engine's "
                "sample size (grey: from 0 to the floor's upper bound; an interval wholly right of it is separated). "
                "Beside each interval, the engine's rank on that distribution (= for a tie; – not ranked); a panel "
                "title says when its distribution cannot rank."
            ),
            heatmap_html(values, engines, "W1"),
            heatmap_html(values, engines, "KL"),
            legend_html(),
        )
    if agents_link:
        body += Markup(
            '<p>The agent benchmark has its own page: <a href="{0}">{0}</a> (written beside this report by '
            "<code>bash tools/run-agents.sh</code>, target <code>agents</code>; absent until that has run).</p>\n"
        ).format(agents_link)
    return body
