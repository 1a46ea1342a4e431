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

from pathlib import Path
from typing import Mapping, Sequence

import jinja2
import pandas as pd
from markupsafe import Markup

from westbench.report.captions import Captions
from westbench.report.cells import LEGEND
from westbench.report.sections import EngineSection, Figure, ProteinSection, engine_section, html_table, wide  # noqa: F401 (the report's API)
from westbench.report.summary_tables import caveats, table_sections

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
