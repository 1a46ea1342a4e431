"""The report's per-engine sections: each engine's table of estimates with intervals, floors and verdicts,
read from its ``metrics.json``, and its figures (:class:`Figure`, :class:`EngineSection`,
:class:`ProteinSection`), plus the one HTML table renderer (:func:`html_table`) every section uses."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import pandas as pd
from markupsafe import Markup

import westbench.metrics.figure_list as figure_list
from westbench.engines.kinds import GROUNDTRUTH
from westbench.report.captions import Captions
from westbench.report.cells import NO_REASON, Estimate, Footnotes, estimate_cell, missing, value_cell


@dataclass
class Figure:
    path: Path
    caption: str | Markup  # plain text (escaped) or HTML (a rendered caption file)
    wide: bool = False  # several panels: drawn at the page's full width

    @property
    def alt(self) -> str:
        """The caption as plain text, for the image's ``alt``."""
        return self.caption.striptags() if isinstance(self.caption, Markup) else self.caption

    @property
    def data(self) -> str:
        return base64.b64encode(Path(self.path).read_bytes()).decode("ascii")


@dataclass
class EngineSection:
    name: str
    table: Markup = Markup("")
    figures: list[Figure] = field(default_factory=list)
    note: str | Markup = ""


@dataclass
class ProteinSection:
    name: str
    figures: list[Figure] = field(default_factory=list)
    engines: list[EngineSection] = field(default_factory=list)


#: The one name the report gives each engine id where the id alone would not say what it is.
ENGINE_NAMES = {GROUNDTRUTH: "ground truth"}
#: Value columns per table beside the key columns: a divergence cell is about 150 px wide, so that a split
#: table fits the page's 1,200 px with its keys (tests/workflow/test_report_browser.py measures it).
COLUMNS_PER_TABLE = 5


def engine_name(engine: str) -> str:
    """The name the report shows for an engine id (the id itself but for :data:`ENGINE_NAMES`).

    Examples
    --------
    >>> engine_name("groundtruth"), engine_name("implicit")
    ('ground truth', 'implicit')
    """
    return ENGINE_NAMES.get(engine, engine)


def split_columns(frame: pd.DataFrame, keys: list[str], per_table: int = COLUMNS_PER_TABLE) -> list[pd.DataFrame]:
    """``frame`` as tables of its ``keys`` and at most ``per_table`` of its other columns each (one table when it
    has no more), so that each fits the page.

    Examples
    --------
    >>> frame = pd.DataFrame({"engine": ["a"], **{f"c{i}": [i] for i in range(7)}})
    >>> [list(part.columns) for part in split_columns(frame, ["engine"], 4)]
    [['engine', 'c0', 'c1', 'c2', 'c3'], ['engine', 'c4', 'c5', 'c6']]
    """
    values = [c for c in frame.columns if c not in keys]
    if len(values) <= per_table:
        return [frame]
    parts = -(-len(values) // per_table)
    size = -(-len(values) // parts)  # balanced: 9 columns in 5 and 4, not 5 and 4 by chance
    return [frame[[*keys, *values[i : i + size]]] for i in range(0, len(values), size)]


def html_table(frame: pd.DataFrame, digits: int = 4) -> Markup:
    """A DataFrame as an HTML table: text escaped, :class:`~markupsafe.Markup` cells kept as they are (the
    formatted divergences), numbers to ``digits`` significant digits, missing values as empty cells; an
    ``engine`` column shows each engine by its one name (:func:`engine_name`).

    Examples
    --------
    >>> html = html_table(pd.DataFrame({"a": ["<b>"], "x": [0.123456], "n": [None]}))
    >>> "<td>&lt;b&gt;</td><td>0.1235</td><td></td>" in html, "<th>a</th><th>x</th><th>n</th>" in html
    (True, True)
    >>> "<td>ground truth</td>" in html_table(pd.DataFrame({"engine": ["groundtruth"]}))
    True
    """
    if "engine" in frame.columns:
        frame = frame.assign(engine=[v if isinstance(v, Markup) else engine_name(v) for v in frame["engine"]])
    head = Markup("").join(Markup("<th>{}</th>").format(column) for column in frame.columns)
    rows = Markup("").join(
        Markup("<tr>{}</tr>\n").format(
            Markup("").join(
                Markup("<td>{}</td>").format(value if isinstance(value, Markup) else value_cell(value, digits=digits))
                for value in row
            )
        )
        for row in frame.itertuples(index=False, name=None)
    )
    return Markup("<table>\n<thead><tr>{}</tr></thead>\n<tbody>\n{}</tbody>\n</table>").format(head, rows)


# The divergences of an engine's own table: (metric, distribution, heading).
ENGINE_DIVERGENCES = (
    ("w1", "tic0", "W1 TIC 0"),
    ("w1", "tic01", "W1 TIC 0/1"),
    ("w1", "rg", "W1 Rg (Å)"),
    ("kl", "tic0", "KL TIC 0"),
    ("kl", "tic01", "KL TIC 0/1"),
)


# Keys of metrics.json's not_estimable that are not weightings.
NOT_WEIGHTINGS = {"noise_floor", "macrostates", "nonfinite", "training"}


def wide(name: str) -> bool:
    """Whether figure ``name`` is drawn at the page's full width: as the figure registry says
    (:mod:`westbench.metrics.figure_list`); figures outside it (the calibration study's are wide) are not."""
    return figure_list.is_registered(name) and figure_list.figure(name).wide


def reasons(not_estimable: Mapping, *keys: str) -> str:
    """The reasons ``not_estimable`` records under any of ``keys``, joined ("" when none).

    Examples
    --------
    >>> reasons({"msm": "one state", "msm/w1/tic0": "one state", "noise_floor": "one run"}, "msm/w1/tic0", "msm",
    ...         "noise_floor")
    'one state; one run'
    """
    found = []
    for key in keys:
        reason = not_estimable.get(key)
        if not missing(reason) and str(reason) not in found:
            found.append(str(reason))
    return "; ".join(found)


def json_estimate(record: Mapping, weighting: str, metric: str, distribution: str) -> Estimate:
    """One divergence of a ``metrics.json`` (its value, interval, the noise floor and the verdict), with the
    reasons of whatever is missing (from ``not_estimable``).

    A value the record does not have at all (that distribution is not scored) is a blank cell; one it
    holds as null is not estimable, with its reason.

    Examples
    --------
    >>> record = {"metrics": {"we": {"w1": {"tic0": 0.5, "rg": None}, "intervals": {"w1": {"tic0": {
    ...     "low": 0.4, "high": 0.7, "bias": 0.0}}}, "verdicts": {"w1": {"tic0": "separated"}}}},
    ...     "noise_floor": {"w1": {"tic0": {"value": 0.1, "low": 0.0, "high": 0.3}}},
    ...     "not_estimable": {"we/w1/rg": "no finite Rg"}}
    >>> e = json_estimate(record, "we", "w1", "tic0")
    >>> e.value, e.low, e.floor_high, e.verdict, e.note
    (0.5, 0.4, 0.3, 'separated', '')
    >>> json_estimate(record, "we", "w1", "rg").note, json_estimate(record, "we", "w1", "tic1").scored
    ('no finite Rg', False)
    """
    values = (record.get("metrics") or {}).get(weighting)
    ne = record.get("not_estimable") or {}
    whole = reasons(ne, weighting)  # the whole weighting not estimable
    if values is None:
        return Estimate(None, note=whole or NO_REASON)
    by_metric = values.get(metric) or {}
    value = by_metric.get(distribution)
    if value is None and distribution not in by_metric and not whole:
        return Estimate(None)
    interval = ((values.get("intervals") or {}).get(metric) or {}).get(distribution) or {}
    floor = (((record.get("noise_floor") or {}).get(metric)) or {}).get(distribution) or {}
    verdict = ((values.get("verdicts") or {}).get(metric) or {}).get(distribution) or ""
    if missing(value):
        return Estimate(
            None, verdict=verdict, note=reasons(ne, f"{weighting}/{metric}/{distribution}", weighting) or NO_REASON
        )
    keys = [f"{weighting}/{metric}/{distribution}"]
    if missing(interval.get("low")) or missing(interval.get("high")):
        keys.append(f"{weighting}/intervals")
    if missing(floor.get("high")):
        keys += [f"noise_floor/{metric}/{distribution}", "noise_floor"]
    note = reasons(ne, *keys)
    if verdict == "undetermined" and not note:
        note = "the interval or the noise floor could not be estimated"
    return Estimate(
        value,
        interval.get("low"),
        interval.get("high"),
        interval.get("bias"),
        floor.get("value"),
        floor.get("low"),
        floor.get("high"),
        verdict,
        note,
        bool(interval.get("extended")),
    )


def engine_table(record: Mapping, prefix: str) -> Markup:
    """One engine's table, a row per weighting (``metrics.json``), and the footnotes of its missing values."""
    notes = Footnotes(prefix)
    ne = record.get("not_estimable") or {}
    macro = record.get("macrostates") or {}
    by_weighting = dict(record.get("metrics") or {})
    listed = (record.get("settings") or {}).get("weightings") or []
    for name in [*listed, *ne]:  # a whole weighting not estimable: a row that says so
        if "/" not in name and name not in NOT_WEIGHTINGS and name not in by_weighting:
            by_weighting[name] = None
    order = [name for name in listed if name in by_weighting]  # the configured order first
    by_weighting = {name: by_weighting[name] for name in [*order, *(n for n in by_weighting if n not in order)]}
    rows = []
    for name, values in by_weighting.items():
        values = values or {}
        row = {
            "weighting": name,
            "frames": record.get("frames"),
            "coverage": value_cell(values.get("coverage"), reasons(ne, f"{name}/coverage", name), notes),
        }
        for metric, distribution, heading in ENGINE_DIVERGENCES:
            row[heading] = estimate_cell(json_estimate(record, name, metric, distribution), notes)
        populations = values.get("macrostate_populations") or {}
        row.update(
            {
                "contact map W1 (Å)": value_cell(
                    values.get("contact_map_w1_A"),
                    reasons(ne, f"{name}/contact_map", f"{name}/contact_map_w1_A", name),
                    notes,
                ),
                "bonds outside 3.5-4.5 Å": value_cell(
                    values.get("bonds_outside_share"), reasons(ne, f"{name}/bonds_outside_share", name), notes
                ),
                "macrostate TV": value_cell(
                    populations.get("total_variation"),
                    reasons(ne, f"{name}/macrostate_populations", "macrostates", name),
                    notes,
                ),
                "macrostates used": value_cell(macro.get("used"), reasons(ne, "macrostates"), notes),
            }
        )
        rows.append(row)
    frame = pd.DataFrame(rows)
    divergences = ["weighting", *(heading for _, _, heading in ENGINE_DIVERGENCES)]
    others = [c for c in frame.columns if c not in divergences[1:]]
    return html_table(frame[divergences]) + html_table(frame[others]) + notes.html()


def engine_section(protein: str, engine: str, metrics_json, captions: Captions) -> EngineSection:
    """One engine's table (a row per weighting) and figures, from its ``metrics.json`` and the ``figures/``
    folder beside it (rule ``metric_suite``); the note is the caption of its metrics table (``report/metrics.rst``),
    given what the job recorded (discarded iterations, the resampled units, the noise floor's splits)."""
    metrics = json.loads(Path(metrics_json).read_text())
    folder = Path(metrics_json).parent / "figures"
    macro = metrics.get("macrostates") or {}
    wildcards = {"protein": protein, "engine": engine}
    runtime = (
        {"macrostates_used": macro["used"], "macrostates_why": macro.get("why", "")}
        if macro.get("used") is not None
        else {}
    )
    # The registry's per-engine figures, in its order, at its width; some are not shown for the ground truth.
    shown = [
        entry
        for entry in figure_list.figures(figure_list.ENGINE)
        if (folder / f"{entry.name}.png").is_file() and not (engine == GROUNDTRUTH and not entry.groundtruth)
    ]
    figures = [
        Figure(folder / f"{entry.name}.png", captions.html(entry.name, wildcards, **runtime), wide=entry.wide)
        for entry in shown
    ]
    recorded = {"discarded_iterations": metrics.get("discarded_iterations", 0)}
    if metrics.get("resampling"):
        recorded["resampling"] = metrics["resampling"]
    floor = metrics.get("noise_floor") or {}
    if floor.get("splits"):
        recorded.update(floor_splits=floor["splits"], floor_units=floor.get("units"))
    if metrics.get("nonfinite_frames_dropped"):
        recorded["nonfinite_frames_dropped"] = metrics["nonfinite_frames_dropped"]
    # metrics.json: the caption of metrics.csv beside it
    note = captions.html(Path(metrics_json).stem, wildcards, **recorded)
    return EngineSection(engine_name(engine), engine_table(metrics, f"{protein}-{engine}"), figures, note=note)
