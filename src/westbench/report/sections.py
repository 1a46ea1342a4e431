"""The report's per-engine sections: each engine's table of estimates with intervals, floors and verdicts,
read from its ``metrics.json`` (:mod:`westbench.report.engine_tables`), and its figures (:class:`Figure`,
:class:`EngineSection`, :class:`ProteinSection`), plus the one HTML table renderer (:func:`html_table`) every
section uses."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from markupsafe import Markup

import westbench.metrics.figure_list as figure_list
from westbench.engines.kinds import GROUNDTRUTH
from westbench.report.captions import Captions
from westbench.report.cells import value_cell
from westbench.report.evidence import ProteinEvidence


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


def wide(name: str) -> bool:
    """Whether figure ``name`` is drawn at the page's full width: as the figure registry says
    (:mod:`westbench.metrics.figure_list`); figures outside it (the calibration study's are wide) are not."""
    return figure_list.is_registered(name) and figure_list.figure(name).wide


def engine_section(
    protein: str, engine: str, metrics_json, captions: Captions, evidence: ProteinEvidence | None = None
) -> EngineSection:
    """One engine's table (a row per weighting) and figures, from its ``metrics.json`` and the ``figures/``
    folder beside it (rule ``metric_suite``); the note is the caption of its metrics table (``report/metrics.rst``),
    given what the job recorded (discarded iterations, the resampled units, the noise floor's splits)."""
    metrics = json.loads(Path(metrics_json).read_text())
    from westbench.report.engine_tables import engine_table  # it renders with this module's html_table

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
    table = engine_table(metrics, f"{protein}-{engine}", evidence)
    return EngineSection(engine_name(engine), table, figures, note=note)
