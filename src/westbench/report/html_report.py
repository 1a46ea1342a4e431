"""The HTML report of one configuration: the bottom line first (:mod:`westbench.report.overview`: which engines
the data rank, how sure, what limits it), the calibration study, the run's settings and caveats, the tables across
proteins and engines, then figures per protein and engine; a contents list links them.

One self-contained file (figures embedded as PNG data), so it can be mailed or
archived with the configuration that produced it. Rendered with Jinja2.
:func:`write_report` is the whole job of rule ``html_report``: the rule passes each file with
its identity (protein, engine or preset) as data, and the caption templates it declares in
``report(..., caption=...)``; captions are rendered as Snakemake's report renders them
(:mod:`westbench.report.captions`), so both reports show the same text.

What a reader needs to trust a number is beside it: every W1 and KL value with its 95 % BCa
interval as ``value [low, high]`` (never "±"), its verdict against the noise floor and the floor's
upper bound (:mod:`westbench.report.cells`); a value that could not be estimated says so where the
number would be, with the reason; a "Caveats" box before the tables lists every ``not_estimable`` entry of
every ``metrics.json`` and every run that dropped non-finite frames (:func:`caveats`). Every table fits the page
(wide ones are split: :func:`westbench.report.sections.split_columns`); the browser test checks it.

Examples
--------
>>> import pandas as pd, tempfile, os
>>> with tempfile.TemporaryDirectory() as folder:
...     path = os.path.join(folder, "report.html")
...     build_report(path, title="demo", summary={"seed": 1},
...                  tables={"W1": pd.DataFrame({"protein": ["p"], "tic0": [0.1]})}, proteins=[])
...     '<h2 id="w1">W1</h2>' in open(path).read()
True
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Mapping, Sequence

import jinja2
import pandas as pd
from markupsafe import Markup

from westbench.report.captions import Captions
from westbench.report.cells import LEGEND
from westbench.report.sections import (  # noqa: F401 (the report's API)
    EngineSection,
    Figure,
    ProteinSection,
    engine_name,
    engine_section,
    html_table,
    wide,
)
from westbench.report.style import SCRIPT, STYLE
from westbench.report.summary_tables import caveats, read_divergence_table, table_sections

TEMPLATE = jinja2.Template(
    """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{ title }}</title>
{{ style }}{{ script }}</head><body>
<h1>{{ title }}</h1>
<nav class="contents"><ol>{% for key, heading in contents %}<li><a href="#{{ key }}">{{ heading }}</a></li>
{% endfor %}</ol></nav>
{% if overview %}<section class="bottom-line">{{ overview }}</section><!-- end of the bottom line -->{% endif %}
{% if calibration %}<section id="calibration">{{ calibration }}</section>{% endif %}
<section><h2 id="run">This run</h2>
<table>{% for key, value in summary.items() %}<tr><th>{{ key }}</th><td>{{ value }}</td></tr>{% endfor %}</table>
<p class="note">W1: Wasserstein-1 (circular, period 360°, for dihedrals); KL: KL(ground truth || model) in nats,
on bins fixed per protein from the ground truth's range, with an overflow bin each side; coverage: share of the ground
truth's TIC 0/1 grid cells the model visited. Units: TICs dimensionless; radius of gyration (Rg), C-alpha bonds and
contact-map distances in Å; angles and dihedrals in degrees. A W1 or KL value reads "estimate [low, high]": the 95 %
BCa bootstrap interval over independent units (widened for few units, docs/scoring.md), then its verdict, and under
it "floor ≤" the upper bound of the noise floor (the ground truth against itself at the model's sample size); the
bootstrap's bias where it exceeds half the interval's width. {{ legend }} Click a figure to enlarge it.</p>
{% for note in notes %}<p class="note">{{ note }}</p>
{% endfor %}</section>
<div class="caveats"><h2 id="caveats">Caveats</h2>
{% if caveats %}<p>What could not be estimated (shown as "not estimable" where the number would be, the reason in a
footnote and on hover) and the frames left out, for every metrics job:</p>
<div class="scroll">{{ caveats }}</div>
{% else %}<p>None: every metric of every engine was estimated, and no frame was dropped.</p>
{% endif %}</div>
{% for name, table in tables.items() %}<section><h2 id="{{ anchors[name] }}">{{ name }}</h2>
{% if name in table_notes %}<div class="note">{{ table_notes[name] }}</div>{% endif %}
<div class="scroll">{{ table }}</div></section>
{% endfor %}
{% for protein in proteins %}<section><h2 id="{{ anchors[protein.name] }}">{{ protein.name }}</h2>
{% for figure in protein.figures %}<figure{% if figure.wide %} class="wide"{% endif %}><img
src="data:image/png;base64,{{ figure.data }}" alt="{{ figure.alt }}">
<figcaption>{{ figure.caption }}</figcaption></figure>{% endfor %}
{% for engine in protein.engines %}<h3>{{ protein.name }}: {{ engine.name }}</h3>
{% if engine.note %}<div class="note">{{ engine.note }}</div>{% endif %}
<div class="scroll">{{ engine.table }}</div>
{% for figure in engine.figures %}<figure{% if figure.wide %} class="wide"{% endif %}><img
src="data:image/png;base64,{{ figure.data }}" alt="{{ figure.alt }}">
<figcaption>{{ figure.caption }}</figcaption></figure>{% endfor %}
{% endfor %}</section>{% endfor %}
</body></html>
""",
    autoescape=True,
)


def anchor(name: str) -> str:
    """A heading's id: its words, lower case, joined by hyphens.

    Examples
    --------
    >>> anchor("KL(ground truth || model)"), anchor("chignolin")
    ('kl-ground-truth-model', 'chignolin')
    """
    return "-".join(re.findall(r"[a-z0-9]+", name.lower())) or "section"


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
    overview: Markup | str = "",
) -> None:
    """Write the report: the ``overview`` (the bottom line, :mod:`westbench.report.overview`), the
    ``calibration`` study, ``summary`` (key/value) with the ``notes``, the ``caveats`` box (:func:`caveats`;
    none when empty), ``tables`` (name/DataFrame or rendered HTML, an optional note each), then each protein's
    section; a contents list links every part."""
    has_caveats = caveats is not None and len(caveats)
    proteins = [replace(protein, name=engine_name(protein.name)) for protein in proteins]
    anchors = {name: anchor(name) for name in [*tables, *(p.name for p in proteins)]}
    contents = [
        *([("bottom-line", "Bottom line")] if overview else []),
        *([("calibration", "Calibration")] if calibration else []),
        ("run", "This run"),
        ("caveats", "Caveats"),
        *((anchors[name], name) for name in tables),
        *((anchors[p.name], p.name) for p in proteins),
    ]
    html = TEMPLATE.render(
        title=title,
        style=STYLE,
        script=SCRIPT,
        overview=overview,
        contents=contents,
        anchors=anchors,
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
    settings : the ``metrics`` keys the page's own notes read (``bootstrap``, ``discard_iterations``; ``weightings``,
        whose first an engine has is the one the bottom line ranks it on).
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
    from westbench.report.overview import overview_html

    overview = overview_html(
        read_divergence_table(tables["w1"]),
        read_divergence_table(tables["kl"]),
        settings.get("weightings") or ["we"],
        floor_designs(metrics),
    )
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
        overview=overview,
    )


def floor_designs(metrics: Sequence[tuple[str, str, object]]) -> dict[str, dict]:
    """Per protein and engine, how its noise floor was made (:class:`westbench.report.bottom_line.FloorDesign`),
    from its ``metrics.json`` (``noise_floor.of_units``, ``noise_floor.units``, ``frames``, ``groundtruth_frames``);
    records without a floor are left out."""
    import json

    from westbench.report.limits import FloorDesign

    designs: dict[str, dict] = {}
    for protein, engine, path in metrics:
        record = json.loads(Path(path).read_text())
        floor = record.get("noise_floor") or {}
        runs = floor.get("of_units")
        if not runs:
            continue
        per_run = (record.get("groundtruth_frames") or 0) / runs
        designs.setdefault(protein, {})[engine] = FloorDesign(
            runs=int(runs),
            pseudo_runs=floor.get("units"),
            engine_runs=(record["frames"] / per_run) if per_run and record.get("frames") else None,
        )
    return designs


def figure_html(figure: Figure) -> Markup:
    """One figure as the template draws it."""
    return Markup(
        '<figure{}><img src="data:image/png;base64,{}" alt="{}">\n<figcaption>{}</figcaption></figure>'
    ).format(Markup(' class="wide"') if figure.wide else Markup(""), figure.data, figure.alt, figure.caption)
