"""The HTML report of one configuration: tables across proteins and engines, then figures per protein and engine.

One self-contained file (figures embedded as PNG data), so it can be mailed or
archived with the configuration that produced it. Rendered with Jinja2.
:func:`write_report` is the whole job of rule ``html_report``: the rule passes each file with
its identity (protein, engine or preset) as data, and the caption templates it declares in
``report(..., caption=...)``; captions are rendered as Snakemake's report renders them
(:mod:`westbench.report.captions`), so both reports show the same text.

What a reader needs to trust a number is beside it: every W1 and KL value with its 95 % BCa
interval as ``value [low, high]`` (never "±"), its verdict against the noise floor and the floor's
upper bound (:mod:`westbench.report.cells`); a value that could not be estimated says so where the
number would be, with the reason; a "Caveats" box at the top lists every ``not_estimable`` entry of
every ``metrics.json`` and every run that dropped non-finite frames (:func:`caveats`).

Examples
--------
>>> import pandas as pd, tempfile, os
>>> with tempfile.TemporaryDirectory() as folder:
...     path = os.path.join(folder, "report.html")
...     build_report(path, title="demo", summary={"seed": 1},
...                  tables={"W1": pd.DataFrame({"protein": ["p"], "tic0": [0.1]})}, proteins=[])
...     "<h2>W1</h2>" in open(path).read()
True
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

import jinja2
import pandas as pd
from markupsafe import Markup

import westbench.metrics.figure_list as figure_list
from westbench.engines.kinds import GROUNDTRUTH
from westbench.report.captions import Captions
from westbench.report.cells import LEGEND, NO_REASON, Estimate, Footnotes, estimate_cell, missing, value_cell
from westbench.verdicts import FIELDS, KEYS, TEXT_FIELDS, distributions_of, verdict_summary

TEMPLATE = jinja2.Template(
    """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{ title }}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: right; vertical-align: top; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
.scroll { overflow-x: auto; max-width: 100%; }
figure { display: inline-block; margin: 0.5em; vertical-align: top; }
figure img { max-width: 560px; cursor: zoom-in; } figcaption { font-size: 0.8em; color: #555; max-width: 560px; }
figure.wide { display: block; } figure.wide img { max-width: 100%; } figure.wide figcaption { max-width: none; }
figure img.enlarged { position: fixed; inset: 2vh 2vw; max-width: 96vw; max-height: 96vh; margin: auto;
  background: white; box-shadow: 0 0 0 100vmax rgba(0, 0, 0, 0.6); z-index: 10; cursor: zoom-out; }
.note { color: #555; font-size: 0.9em; }
.caveats { border: 2px solid #c77700; background: #fff8ec; padding: 0.25em 1em; margin: 1em 0; }
.caveats td, .caveats th { text-align: left; }
.estimate { white-space: nowrap; }
.verdict { font-weight: bold; cursor: help; } .v-separated { color: #b00020; } .v-within-noise { color: #2e7d32; }
.v-undetermined { color: #777; }
.floor, .bias { font-size: 0.85em; color: #666; white-space: nowrap; } .bias { color: #8a4b00; }
.not-estimable { font-style: italic; color: #8a4b00; cursor: help; }
ol.footnotes { font-size: 0.8em; color: #555; margin-top: -1em; }
</style>
<script>document.addEventListener("click", e => {
  if (e.target.tagName === "IMG") e.target.classList.toggle("enlarged"); });</script>
</head><body>
<h1>{{ title }}</h1>
<table>{% for key, value in summary.items() %}<tr><th>{{ key }}</th><td>{{ value }}</td></tr>{% endfor %}</table>
{% if calibration %}{{ calibration }}{% endif %}
<div class="caveats"><h2>Caveats</h2>
{% if caveats %}<p>What could not be estimated (shown as "not estimable" where the number would be, the reason in a
footnote and on hover) and the frames left out, for every metrics job:</p>
<div class="scroll">{{ caveats }}</div>
{% else %}<p>None: every metric of every engine was estimated, and no frame was dropped.</p>
{% endif %}</div>
<p class="note">W1: Wasserstein-1 (circular, period 360°, for dihedrals); KL: KL(ground truth || model) in nats,
on bins fixed per protein from the ground truth's range, with an overflow bin each side; coverage: share of the ground
truth's TIC 0/1 grid cells the model visited. Units: TICs dimensionless; radius of gyration (Rg), C-alpha bonds and
contact-map distances in Å; angles and dihedrals in degrees. A W1 or KL value reads "estimate [low, high]": the 95 %
BCa bootstrap interval over independent units, then its verdict, and under it "floor ≤" the upper bound of the
noise floor (the ground truth against itself at the model's sample size); the bootstrap's bias where it exceeds half
the interval's width. {{ legend }} Click a figure to enlarge it.</p>
{% for note in notes %}<p class="note">{{ note }}</p>
{% endfor %}
{% for name, table in tables.items() %}<h2>{{ name }}</h2>
{% if name in table_notes %}<div class="note">{{ table_notes[name] }}</div>{% endif %}
<div class="scroll">{{ table }}</div>
{% endfor %}
{% for protein in proteins %}<h2>{{ protein.name }}</h2>
{% for figure in protein.figures %}<figure{% if figure.wide %} class="wide"{% endif %}><img
src="data:image/png;base64,{{ figure.data }}" alt="{{ figure.alt }}">
<figcaption>{{ figure.caption }}</figcaption></figure>{% endfor %}
{% for engine in protein.engines %}<h3>{{ protein.name }}: {{ engine.name }}</h3>
{% if engine.note %}<div class="note">{{ engine.note }}</div>{% endif %}
<div class="scroll">{{ engine.table }}</div>
{% for figure in engine.figures %}<figure{% if figure.wide %} class="wide"{% endif %}><img
src="data:image/png;base64,{{ figure.data }}" alt="{{ figure.alt }}">
<figcaption>{{ figure.caption }}</figcaption></figure>{% endfor %}
{% endfor %}{% endfor %}
</body></html>
""",
    autoescape=True,
)

#: Column headings of the divergence tables' distributions, and the unit of each distribution (its W1's unit).
HEADINGS = {
    "tic0": "TIC 0",
    "tic1": "TIC 1",
    "tic2": "TIC 2",
    "tic3": "TIC 3",
    "rg": "Rg",
    "bonds": "bonds",
    "angles": "angles",
    "dihedrals": "dihedrals",
    "tic01": "TIC 0/1",
}
UNITS = {"rg": "Å", "bonds": "Å", "angles": "°", "dihedrals": "°"}
CAVEAT_COLUMNS = ["protein", "engine", "key", "reason"]


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


def html_table(frame: pd.DataFrame, digits: int = 4) -> Markup:
    """A DataFrame as an HTML table: text escaped, :class:`~markupsafe.Markup` cells kept as they are (the
    formatted divergences), numbers to ``digits`` significant digits, missing values as empty cells.

    Examples
    --------
    >>> html = html_table(pd.DataFrame({"a": ["<b>"], "x": [0.123456], "n": [None]}))
    >>> "<td>&lt;b&gt;</td><td>0.1235</td><td></td>" in html, "<th>a</th><th>x</th><th>n</th>" in html
    (True, True)
    """
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


def build_report(
    path,
    *,
    title: str,
    summary: Mapping,
    tables: Mapping[str, pd.DataFrame | Markup],
    proteins: list[ProteinSection],
    notes: list[str] | tuple = (),
    table_notes: Mapping[str, str] | None = None,
    caveats: pd.DataFrame | None = None,
    calibration: Markup | str = "",
) -> None:
    """Write the report: ``summary`` (key/value), the ``caveats`` box (:func:`caveats`; none when empty),
    ``notes``, ``tables`` (name/DataFrame or rendered HTML, an optional note each), then each protein's section."""
    has_caveats = caveats is not None and len(caveats)
    html = TEMPLATE.render(
        title=title,
        summary=summary,
        proteins=proteins,
        notes=list(notes),
        calibration=calibration,
        table_notes=dict(table_notes or {}),
        legend=LEGEND,
        caveats=html_table(caveats) if has_caveats else "",
        tables={name: table if isinstance(table, Markup) else html_table(table) for name, table in tables.items()},
    )
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(html, encoding="utf-8")


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
                "|contact diff| (Å)": value_cell(
                    values.get("contact_map_mean_abs_diff_A"),
                    reasons(ne, f"{name}/contact_map", f"{name}/contact_map_mean_abs_diff_A", name),
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
    return html_table(pd.DataFrame(rows)) + notes.html()


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
    return EngineSection(engine, engine_table(metrics, f"{protein}-{engine}"), figures, note=note)


def text(value) -> str:
    """A text cell of a table read from CSV: "" where it is empty."""
    return "" if missing(value) else str(value)


def csv_estimate(row: Mapping, name: str) -> Estimate:
    """Distribution ``name`` of one row of a W1/KL table (:func:`westbench.metrics.tables.divergence_table`);
    the columns the older format lacks are None.

    Examples
    --------
    >>> e = csv_estimate({"rg": 0.4, "rg_ci_low": 0.3, "rg_ci_high": 0.6, "rg_verdict": float("nan")}, "rg")
    >>> e.value, e.low, e.high, e.floor_high, e.verdict, e.scored
    (0.4, 0.3, 0.6, None, '', False)
    """

    def get(part):
        value = row.get(f"{name}_{part}")
        return None if missing(value) else value

    return Estimate(
        row.get(name),
        *(get(part) for part in FIELDS if part not in TEXT_FIELDS),
        verdict=text(row.get(f"{name}_verdict")),
        note=text(row.get(f"{name}_note")),
    )


def divergence_cells(table: pd.DataFrame, prefix: str, units: bool = True) -> tuple[pd.DataFrame, Footnotes]:
    """A W1/KL table for reading: the keys, then per distribution one cell (:func:`estimate_cell`); headings
    carry the distribution's unit when ``units`` (W1); the footnotes give the reasons of missing values.

    Examples
    --------
    >>> table = pd.DataFrame({"engine": ["a"], "rg": [0.375], "rg_ci_low": [0.21], "rg_ci_high": [0.9],
    ...                       "rg_floor_high": [1.63], "rg_verdict": ["within noise"], "rg_note": [""]})
    >>> cells, notes = divergence_cells(table, "w1")
    >>> list(cells.columns), "0.375 [0.21, 0.90]" in cells.iloc[0, 1], "±" in cells.iloc[0, 1]
    (['engine', 'Rg (Å)'], True, False)
    """
    notes = Footnotes(prefix)
    names = distributions_of(table)
    headings = [f"{HEADINGS.get(n, n)} ({UNITS[n]})" if units and n in UNITS else HEADINGS.get(n, n) for n in names]
    keys = [key for key in KEYS if key in table]
    rows = []
    for row in table.to_dict("records"):  # row by row: footnotes numbered in reading order
        rows.append([row[key] for key in keys] + [estimate_cell(csv_estimate(row, n), notes) for n in names])
    return pd.DataFrame(rows, columns=[*keys, *headings]), notes


def divergence_html(table: pd.DataFrame, prefix: str, units: bool = True) -> Markup:
    """:func:`divergence_cells` as HTML, its footnotes below the table."""
    cells, notes = divergence_cells(table, prefix, units)
    return html_table(cells) + notes.html()


def read_divergence_table(path) -> pd.DataFrame:
    """A W1/KL CSV of rule ``metric_tables``: verdicts and notes as text ("" where empty)."""
    table = pd.read_csv(path)
    for column in table.columns:
        if str(column).endswith(tuple(f"_{part}" for part in TEXT_FIELDS)):
            table[column] = [text(value) for value in table[column]]
    return table


def verdict_table(w1: pd.DataFrame, kl: pd.DataFrame) -> pd.DataFrame | None:
    """Per protein, engine and weighting: how many W1 and KL values are separated, within noise or
    undetermined; None when no table has verdicts (the older format).

    Examples
    --------
    >>> w1 = pd.DataFrame({"engine": ["a", "b"], "tic0": [0.5, 0.1], "tic0_verdict": ["separated", "within noise"]})
    >>> kl = pd.DataFrame({"engine": ["b"], "tic0": [None], "tic0_verdict": ["undetermined"]})
    >>> verdict_table(w1, kl).to_dict("records")  # doctest: +NORMALIZE_WHITESPACE
    [{'engine': 'a', 'W1 separated': 1, 'W1 within noise': 0, 'W1 undetermined': 0, 'KL separated': None,
      'KL within noise': None, 'KL undetermined': None},
     {'engine': 'b', 'W1 separated': 0, 'W1 within noise': 1, 'W1 undetermined': 0, 'KL separated': 0,
      'KL within noise': 0, 'KL undetermined': 1}]
    >>> verdict_table(w1.drop(columns="tic0_verdict"), kl.iloc[0:0]) is None
    True
    """
    parts = []
    for label, table in (("W1", w1), ("KL", kl)):
        by = [key for key in KEYS if key in table]
        summary = verdict_summary(table, by=by)
        if summary.drop(columns=[*by, "no verdict"]).to_numpy().sum() == 0:
            continue
        summary = summary.drop(columns="no verdict") if not summary["no verdict"].any() else summary
        parts.append(summary.rename(columns={c: f"{label} {c}" for c in summary.columns if c not in by}))
    if not parts:
        return None
    merged = parts[0]
    for part in parts[1:]:
        on = [key for key in KEYS if key in merged and key in part]
        rows = pd.concat([merged[on], part[on]]).drop_duplicates()  # every row once, in the tables' order
        merged = rows.merge(merged, on=on, how="left").merge(part, on=on, how="left")
    counts = [c for c in merged.columns if c not in KEYS]
    return merged.astype({c: "Int64" for c in counts})


def caveats(metrics: Sequence[tuple[str, str, object]]) -> pd.DataFrame:
    """Every ``not_estimable`` entry of every ``metrics.json`` (protein, engine, key, reason), and a row for
    each run that dropped frames with non-finite coordinates (``nonfinite_frames_dropped`` > 0).

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "metrics.json")
    >>> _ = open(path, "w").write(json.dumps({"not_estimable": {"msm": "one grid cell"},
    ...                                       "nonfinite_frames_dropped": 2}))
    >>> caveats([("p", "explicit", path)]).values.tolist()  # doctest: +NORMALIZE_WHITESPACE
    [['p', 'explicit', 'msm', 'one grid cell'],
     ['p', 'explicit', 'nonfinite_frames_dropped', '2 frames with non-finite coordinates dropped before scoring']]
    """
    rows = []
    for protein, engine, path in metrics:
        record = json.loads(Path(path).read_text())
        for key, reason in (record.get("not_estimable") or {}).items():
            rows.append([protein, engine, key, text(reason) or "no reason recorded"])
        dropped = record.get("nonfinite_frames_dropped") or 0
        if dropped > 0:
            rows.append(
                [
                    protein,
                    engine,
                    "nonfinite_frames_dropped",
                    f"{dropped} frame{'s' if dropped != 1 else ''} with non-finite coordinates dropped before scoring",
                ]
            )
    return pd.DataFrame(rows, columns=CAVEAT_COLUMNS)


def kl_sensitivity(metrics: Sequence[tuple[str, str, object]]) -> str:
    """One sentence: the KL of TIC 0/1 of the first model engine at several bin counts
    (``metrics``: (protein, engine, metrics.json) records)."""
    for protein, engine, path in metrics:
        example = json.loads(Path(path).read_text()).get("kl_tic01_by_bins")
        if engine != GROUNDTRUTH and example and example.get("values"):
            values = ", ".join(
                f"{bins} bins: {'not estimable' if missing(value) else f'{value:.3g}'}"
                for bins, value in example["values"].items()
            )
            return (
                f"Binning sensitivity, once: KL(TIC 0/1) of {protein} / {engine} "
                f"({example['weighting']} weights) is {values}."
            )
    return ""


def table_sections(
    tables: Mapping[str, object], settings: Mapping, metrics: Sequence[tuple[str, str, object]], captions: Captions
) -> tuple[dict, dict]:
    """The report's tables ({heading: DataFrame or HTML}) and their notes, from the CSVs of rule
    ``metric_tables`` (``w1``, ``kl``, ``coverage``) and the ground-truth throughput (``throughput``).

    A note is the caption the rules declare for that CSV (``report/tables/*.rst``), plus what only this
    page shows: how a cell reads and, for KL, the binning-sensitivity example. When the tables carry
    verdicts, a first table counts them per protein, engine and weighting.
    """
    verdicts = "Verdicts against the noise floor"
    w1, kl = "Wasserstein-1 (W1)", "KL(ground truth || model)"
    coverage = "Coverage of the ground truth's TIC 0/1 plane and compute spent"
    reach = "Compute to reach each coverage threshold, and speed-up against the reference engine"
    throughput = "Ground-truth throughput"
    full = pd.read_csv(tables["coverage"])
    per_threshold = [c for c in full.columns if "_to_" in c]
    w1_table, kl_table = read_divergence_table(tables["w1"]), read_divergence_table(tables["kl"])
    # Split so that each table fits a 1,400 px window: totals, then the per-threshold compute.
    frames = {
        w1: divergence_html(w1_table, "w1"),
        kl: divergence_html(kl_table, "kl", units=False),
        coverage: full.drop(columns=per_threshold),
        reach: full[["protein", "engine", *per_threshold]],
        throughput: pd.read_csv(tables["throughput"]),
    }
    summary = verdict_table(w1_table, kl_table)
    if summary is not None:
        frames = {verdicts: summary, **frames}
    if settings["bootstrap"]:
        reading = (
            Markup(
                "Each cell: the estimate [95 % BCa interval] ({} bootstrap replicates over independent "
                "units), its verdict and, under it, the noise floor's upper bound (hover for its median "
                "and range); the bias where it exceeds half the interval. Full precision, the bias and the "
                "floor's median and range are in the CSV. "
            ).format(settings["bootstrap"])
            + LEGEND
        )
    else:
        reading = Markup("metrics.bootstrap is 0: no intervals, so no value is called separated or within noise.")

    def note(caption: str, *more) -> Markup:
        extra = Markup(" ").join(text for text in more if text)  # plain text is escaped, Markup kept
        return captions.html(caption) + (Markup("<p>{}</p>").format(extra) if extra else Markup(""))

    name = {role: Path(path).stem for role, path in tables.items()}  # a table's caption: its file's name
    notes = {
        w1: note(name["w1"], reading),
        kl: note(name["kl"], kl_sensitivity(metrics), reading),
        coverage: note(name["coverage"]),
        reach: Markup("<p>The per-threshold columns of the coverage table above (same CSV).</p>"),
        throughput: note(name["throughput"]),
    }
    if summary is not None:
        notes[verdicts] = Markup(
            "<p>Per protein, engine and weighting: how many of the W1 and KL values "
            "(one per distribution, the tables below) are separated from the ground truth's "
            "noise floor (the interval's lower bound above the floor's upper bound), within "
            "it, or undetermined (the interval or the floor not estimable).</p>"
        )
    return frames, notes


def write_report(
    path,
    *,
    title: str,
    summary: Mapping,
    settings: Mapping,
    tables: Mapping[str, object],
    metrics: Sequence[tuple[str, str, object]],
    densities: Sequence[tuple[str, object]] = (),
    training_curves: Sequence[tuple[str, str, object]] = (),
    protein_figures: Sequence[tuple[str, str, object]] = (),
    captions: Mapping[str, str],
    caption_config: Mapping,
    calibration: Mapping | None = None,
) -> None:
    """The HTML report of one configuration (rule ``html_report``), every file given with its identity.

    Parameters
    ----------
    path : output HTML file.
    title, summary : the heading and the key facts of the configuration.
    settings : the ``metrics`` keys the page's own notes read (``bootstrap``, ``discard_iterations``).
    tables : CSV files by role: ``w1``, ``kl``, ``coverage``, ``throughput``.
    metrics : (protein, engine, metrics.json) of every metrics job; the figures are beside each file.
    densities : (protein, tic01_density.png) of every protein.
    training_curves : (protein, preset, training_curve.png) of every CG model; protein ``all`` for a model
        trained on every protein.
    protein_figures : (protein, figure name, png) of the figures across engines.
    captions : {figure or table name (the output file's stem): caption template}, as the rules declare them;
        each file's caption is found by its name.
    caption_config : the part of the config the captions read (:func:`westbench.report.captions.caption_config`).
    calibration : the calibration study's ``table`` (CSV), ``summary`` (JSON) and ``figures`` (PNGs), shown first;
        None when the study is off.
    """
    captions = Captions(captions, caption_config)
    sections: dict[str, ProteinSection] = {}

    def section(protein: str) -> ProteinSection:
        return sections.setdefault(protein, ProteinSection(protein))

    for protein, engine, metrics_json in metrics:
        section(protein).engines.append(engine_section(protein, engine, metrics_json, captions))
    for protein, preset, curve in training_curves:
        wildcards = {"preset": preset, **({} if protein == "all" else {"protein": protein})}
        section("all proteins" if protein == "all" else protein).figures.append(
            Figure(curve, captions.html(Path(curve).stem, wildcards))
        )
    for protein, density in densities:
        section(protein).figures.insert(0, Figure(density, captions.html(Path(density).stem, {"protein": protein})))
    for protein, name, figure in protein_figures:
        section(protein).figures.append(Figure(figure, captions.html(name, {"protein": protein}), wide=wide(name)))
    frames, table_notes = table_sections(tables, settings, metrics, captions)
    discard = settings["discard_iterations"]
    notes = [
        f"Weights: WE weights sum to one within each iteration; all iterations are pooled with their weights "
        f"as exported and normalized once, so every iteration counts equally. Leading iterations left out: "
        f"{discard if discard else 'none'} (metrics.discard_iterations)."
    ]
    study = ""
    if calibration:
        from westbench.report.calibration import calibration_html

        figures = [Figure(f, captions.html(Path(f).stem), wide=True) for f in calibration["figures"]]
        study = calibration_html(calibration["table"], calibration["summary"], figures, html_table, figure_html)
    build_report(
        path,
        title=title,
        summary=summary,
        tables=frames,
        proteins=list(sections.values()),
        notes=notes,
        table_notes=table_notes,
        caveats=caveats(metrics),
        calibration=study,
    )


def figure_html(figure: Figure) -> Markup:
    """One figure as the template draws it."""
    return Markup(
        '<figure{}><img src="data:image/png;base64,{}" alt="{}">\n<figcaption>{}</figcaption></figure>'
    ).format(Markup(' class="wide"') if figure.wide else Markup(""), figure.data, figure.alt, figure.caption)
