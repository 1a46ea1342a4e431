"""The HTML report of one configuration: the bottom line first (:mod:`westbench.report.overview`: which engines
the data can rank and how sure, or that it cannot and what run would), what the run could detect (its controls:
:mod:`westbench.report.detection`), the figures a reader of the published benchmark looks for (TIC densities,
coverage against compute, training curves), the calibration study, the run's settings and caveats, the tables
across proteins and engines, each engine's own table and figures, and the definitions of every quantity shown
(:mod:`westbench.report.definitions`); a contents list links them (the page: :mod:`westbench.report.page`).

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
(wide ones are split: :func:`westbench.report.html_tables.split_columns`); the browser test checks it.

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

import pandas as pd
from markupsafe import Markup

from westbench.report.captions import Captions
from westbench.report.cells import LEGEND
from westbench.report.definitions import defined_line, definitions_html, headings_of
from westbench.report.html_tables import engine_name, html_table  # noqa: F401 (the report's API)
from westbench.report.limits import floor_designs
from westbench.report.page import TEMPLATE
from westbench.report.sections import (  # noqa: F401 (the report's API)
    EngineSection,
    Figure,
    ProteinSection,
    engine_section,
    wide,
)
from westbench.report.style import SCRIPT, STYLE
from westbench.report.summary_tables import caveats, read_divergence_table, table_sections


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
    detection: Markup | str = "",
) -> None:
    """Write the report: the ``overview`` (the bottom line, :mod:`westbench.report.overview`), each protein's
    figures, what the run could detect (``detection``, :mod:`westbench.report.detection`), the ``calibration`` study,
    ``summary`` (key/value) with the ``notes``, the ``caveats`` box (:func:`caveats`; none when empty), ``tables``
    (name/DataFrame or rendered HTML, an optional note each), then each protein's engine sections and the
    definitions of every quantity shown (each table links those of its columns); a contents list links every
    part."""
    has_caveats = caveats is not None and len(caveats)
    proteins = [replace(protein, name=engine_name(protein.name)) for protein in proteins]
    figured = [protein for protein in proteins if protein.figures]
    anchors = {name: anchor(name) for name in [*tables, *(p.name for p in proteins)]}
    contents = [
        *([("bottom-line", "Bottom line")] if overview else []),
        *([("figures", "Figures")] if figured else []),
        *([("detection", "What this run could detect")] if detection else []),
        *([("calibration", "Calibration")] if calibration else []),
        ("run", "This run"),
        ("caveats", "Caveats"),
        *((anchors[name], name) for name in tables),
        *((anchors[p.name], p.name) for p in proteins if p.engines),
        ("definitions", "Definitions"),
    ]
    rendered = {name: table if isinstance(table, Markup) else html_table(table) for name, table in tables.items()}
    html = TEMPLATE.render(
        title=title,
        style=STYLE,
        script=SCRIPT,
        overview=overview,
        detection=detection,
        figured=figured,
        contents=contents,
        anchors=anchors,
        summary=summary,
        proteins=proteins,
        notes=list(notes),
        calibration=calibration,
        table_notes=dict(table_notes or {}),
        legend=LEGEND,
        caveats=html_table(caveats) if has_caveats else "",
        caveats_defined=defined_line(caveats.columns) if has_caveats else "",
        tables=rendered,
        defined={name: defined_line(headings_of(html)) for name, html in rendered.items()},
        engine_defined=lambda html: defined_line(headings_of(html)),
        definitions=definitions_html(),
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
    controls: Sequence[tuple[str, object]] = (),
    paper: Mapping[str, Mapping] | None = None,
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
    calibration : the calibration study's ``table`` (CSV), ``summary`` (JSON) and ``figures`` (PNGs);
        None when the study is off.
    controls : (protein, controls.json) of every protein (:mod:`westbench.metrics.controls`); a file that is not
        there is a run without controls, and the report says what it could detect is not known.
    paper : the published configuration's ground truth per protein (``config/paper.yaml``:
        :func:`westbench.report.scale.paper_ground_truths`), which the bottom line's "what would rank them" quotes;
        None when not known.
    """
    from westbench.report.detection import detection_html
    from westbench.report.evidence import read_evidence, sanity_from_table
    from westbench.report.scale import plans_from

    captions = Captions(captions, caption_config)
    evidence = read_evidence(metrics, controls)
    w1_table, kl_table = read_divergence_table(tables["w1"]), read_divergence_table(tables["kl"])
    sanity_from_table(evidence, w1_table)
    sections = _protein_sections(metrics, densities, protein_figures, training_curves, captions, evidence)
    frames, table_notes = table_sections(tables, settings, metrics, captions, evidence)
    discard = settings["discard_iterations"]
    notes = [
        f"Weights: WE weights sum to one within each iteration; all iterations are pooled with their weights "
        f"as exported and normalized once, so every iteration counts equally. Leading iterations left out: "
        f"{discard if discard else 'none'} (metrics.discard_iterations)."
    ]
    study = _calibration_study(calibration, captions) if calibration else ""
    from westbench.report.overview import overview_html

    overview = overview_html(
        w1_table,
        kl_table,
        settings.get("weightings") or ["we"],
        floor_designs(metrics),
        evidence=evidence,
        plans=plans_from(paper),
    )
    detection = detection_html({p: e.controls for p, e in evidence.items()}) if controls else ""
    build_report(
        path,
        title=title,
        summary=summary,
        tables=frames,
        proteins=sections,
        notes=notes,
        table_notes=table_notes,
        caveats=caveats(metrics),
        calibration=study,
        overview=overview,
        detection=detection,
    )


def _protein_sections(metrics, densities, protein_figures, training_curves, captions, evidence) -> list[ProteinSection]:
    """The page's sections per protein (in order of first mention): engines, density first, figures, training curves."""
    sections: dict[str, ProteinSection] = {}

    def section(protein: str) -> ProteinSection:
        return sections.setdefault(protein, ProteinSection(protein))

    for protein, engine, metrics_json in metrics:
        section(protein).engines.append(engine_section(protein, engine, metrics_json, captions, evidence.get(protein)))
    for protein, density in densities:
        section(protein).figures.insert(0, Figure(density, captions.html(Path(density).stem, {"protein": protein})))
    for protein, name, figure in protein_figures:
        section(protein).figures.append(Figure(figure, captions.html(name, {"protein": protein}), wide=wide(name)))
    for protein, preset, curve in training_curves:
        wildcards = {"preset": preset, **({} if protein == "all" else {"protein": protein})}
        outcome = training_outcome(evidence, protein, preset)
        section("all proteins" if protein == "all" else protein).figures.append(
            Figure(curve, captions.html(Path(curve).stem, wildcards, **outcome))
        )
    return list(sections.values())


def _calibration_study(calibration: Mapping, captions: Captions) -> str:
    """The calibration study's part of the page, with its figures and the definitions line of its headings."""
    from westbench.report.calibration import calibration_html

    figures = [Figure(f, captions.html(Path(f).stem), wide=True) for f in calibration["figures"]]
    study = calibration_html(calibration["table"], calibration["summary"], figures, html_table, figure_html)
    return study + defined_line(headings_of(study))


def training_outcome(evidence: Mapping, protein: str, preset: str) -> dict:
    """The training curve's runtime caption value ``outcome``: the failure-to-learn caveat of engine ``cg_<preset>``
    (:func:`westbench.presentation.training.failure_to_learn`, the Caveats' own words), from its ``metrics.json``;
    {} when it learned or was not scored. ``protein`` ``all``: a model shared by every protein."""
    from westbench.presentation.training import failure_to_learn

    proteins = list(evidence) if protein == "all" else [protein]
    for name in proteins:
        engine = evidence[name].engines.get(f"cg_{preset}") if name in evidence else None
        if engine is not None and engine.training:
            return {"outcome": failure_to_learn(engine.training, "caveat")}
    return {}


def figure_html(figure: Figure) -> Markup:
    """One figure as the template draws it."""
    return Markup(
        '<figure{}><img src="data:image/png;base64,{}" alt="{}">\n<figcaption>{}</figcaption></figure>'
    ).format(Markup(' class="wide"') if figure.wide else Markup(""), figure.data, figure.alt, figure.caption)
