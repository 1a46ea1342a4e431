"""The HTML report of one configuration: tables across proteins and engines, then figures per protein and engine.

One self-contained file (figures embedded as PNG data), so it can be mailed or
archived with the configuration that produced it. Rendered with Jinja2.
:func:`write_report` is the whole job of rule ``html_report``: the rule passes each file with
its identity (protein, engine or preset) as data, and the caption templates it declares in
``report(..., caption=...)``; captions are rendered as Snakemake's report renders them
(:mod:`westbench.report.captions`), so both reports show the same text.

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

from westbench.engines.kinds import GROUNDTRUTH
from westbench.metrics.figure_list import FIGURES
from westbench.report.captions import Captions

TEMPLATE = jinja2.Template("""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{ title }}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: right; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
.scroll { overflow-x: auto; max-width: 100%; }
figure { display: inline-block; margin: 0.5em; vertical-align: top; }
figure img { max-width: 560px; cursor: zoom-in; } figcaption { font-size: 0.8em; color: #555; max-width: 560px; }
figure.wide { display: block; } figure.wide img { max-width: 100%; } figure.wide figcaption { max-width: none; }
figure img.enlarged { position: fixed; inset: 2vh 2vw; max-width: 96vw; max-height: 96vh; margin: auto;
  background: white; box-shadow: 0 0 0 100vmax rgba(0, 0, 0, 0.6); z-index: 10; cursor: zoom-out; }
.note { color: #555; font-size: 0.9em; }
</style>
<script>document.addEventListener("click", e => { if (e.target.tagName === "IMG") e.target.classList.toggle("enlarged"); });</script>
</head><body>
<h1>{{ title }}</h1>
<table>{% for key, value in summary.items() %}<tr><th>{{ key }}</th><td>{{ value }}</td></tr>{% endfor %}</table>
<p class="note">W1: Wasserstein-1; KL: KL(ground truth || model), empty model bins floored as stated; coverage:
share of the ground truth's TIC 0/1 grid cells the model visited. Click a figure to enlarge it.</p>
{% for note in notes %}<p class="note">{{ note }}</p>
{% endfor %}
{% for name, table in tables.items() %}<h2>{{ name }}</h2>
{% if name in table_notes %}<div class="note">{{ table_notes[name] }}</div>{% endif %}
<div class="scroll">{{ table }}</div>
{% endfor %}
{% for protein in proteins %}<h2>{{ protein.name }}</h2>
{% for figure in protein.figures %}<figure{% if figure.wide %} class="wide"{% endif %}><img src="data:image/png;base64,{{ figure.data }}" alt="{{ figure.alt }}">
<figcaption>{{ figure.caption }}</figcaption></figure>{% endfor %}
{% for engine in protein.engines %}<h3>{{ protein.name }}: {{ engine.name }}</h3>
{% if engine.note %}<div class="note">{{ engine.note }}</div>{% endif %}
<div class="scroll">{{ engine.table }}</div>
{% for figure in engine.figures %}<figure{% if figure.wide %} class="wide"{% endif %}><img src="data:image/png;base64,{{ figure.data }}" alt="{{ figure.alt }}">
<figcaption>{{ figure.caption }}</figcaption></figure>{% endfor %}
{% endfor %}{% endfor %}
</body></html>
""", autoescape=True)


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
    """A DataFrame as an HTML table (cells escaped by pandas), floats rounded, NaN shown as an empty cell."""
    return Markup(frame.to_html(index=False, float_format=lambda x: f"{x:.{digits}g}", na_rep="", border=0, escape=True))


def build_report(path, *, title: str, summary: Mapping, tables: Mapping[str, pd.DataFrame],
                 proteins: list[ProteinSection], notes: list[str] | tuple = (),
                 table_notes: Mapping[str, str] | None = None) -> None:
    """Write the report: ``summary`` (key/value), ``notes``, ``tables`` (name/DataFrame, an optional note
    each), then each protein's section."""
    html = TEMPLATE.render(title=title, summary=summary, proteins=proteins, notes=list(notes),
                           table_notes=dict(table_notes or {}),
                           tables={name: html_table(table) for name, table in tables.items()})
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(html, encoding="utf-8")


# Layout: figures of several panels drawn at the page's full width.
WIDE = {"tic_densities_1d", "tic_densities_2d", "tic01_by_iteration", "structure_distributions", "msm_reweighting",
        "macrostates", "engines_tic01", "coverage_vs_compute"}
# Figures that carry no information for the ground truth scored against itself.
NOT_FOR_GROUNDTRUTH = {"contact_map_difference"}


def engine_section(protein: str, engine: str, metrics_json, captions: Captions) -> EngineSection:
    """One engine's table (a row per weighting) and figures, from its ``metrics.json`` and the ``figures/``
    folder beside it (rule ``metrics``); the note is the caption of its metrics table (``report/metrics.rst``)."""
    metrics = json.loads(Path(metrics_json).read_text())
    folder = Path(metrics_json).parent / "figures"
    macro = metrics.get("macrostates", {})
    rows = []
    for name, values in metrics["metrics"].items():
        rows.append({"weighting": name, "frames": metrics["frames"], "coverage": values["coverage"],
                     "W1 TIC 0": values["w1"].get("tic0"), "W1 TIC 0/1": values["w1"].get("tic01"),
                     "W1 Rg (nm)": values["w1"].get("rg"),
                     "KL TIC 0/1": values["kl"].get("tic01"),
                     "|contact diff| (Å)": values["contact_map_mean_abs_diff_A"],
                     "bonds outside 3.5-4.5 Å": values["bonds_outside_share"],
                     "macrostate TV": values["macrostate_populations"]["total_variation"],
                     "macrostates used": macro.get("used")})
    wildcards = {"protein": protein, "engine": engine}
    runtime = {"macrostates_used": macro["used"], "macrostates_why": macro.get("why", "")} if macro else {}
    names = [name for name in FIGURES if (folder / f"{name}.png").is_file()
             and not (engine == GROUNDTRUTH and name in NOT_FOR_GROUNDTRUTH)]
    figures = [Figure(folder / f"{name}.png", captions.html(name, wildcards, **runtime), wide=name in WIDE)
               for name in names]
    note = captions.html(Path(metrics_json).stem, wildcards,  # metrics.json: the caption of metrics.csv beside it
                         discarded_iterations=metrics.get("discarded_iterations", 0))
    return EngineSection(engine, html_table(pd.DataFrame(rows)), figures, note=note)


def with_intervals(table: pd.DataFrame, digits: int = 3) -> pd.DataFrame:
    """W1/KL table for reading: each value rounded, as value ± half-width of its 95 % interval when there is one.

    Examples
    --------
    >>> table = pd.DataFrame({"engine": ["a"], "tic0": [0.12345], "tic0_ci_low": [0.1], "tic0_ci_high": [0.2]})
    >>> with_intervals(table).to_dict("records")
    [{'engine': 'a', 'tic0': '0.123 ± 0.05'}]
    """
    shown = table[[c for c in table.columns if not c.endswith(("_ci_low", "_ci_high"))]].copy()
    for column in shown.columns:
        if column in ("protein", "engine", "weighting"):
            continue
        low, high = table.get(f"{column}_ci_low"), table.get(f"{column}_ci_high")
        cells = []
        for i, value in enumerate(table[column]):
            if pd.isna(value):
                cells.append("")
            elif low is not None and pd.notna(low.iloc[i]):
                cells.append(f"{value:.{digits}g} ± {(high.iloc[i] - low.iloc[i]) / 2:.2g}")
            else:
                cells.append(f"{value:.{digits}g}")
        shown[column] = cells
    return shown


def kl_sensitivity(metrics: Sequence[tuple[str, str, object]]) -> str:
    """One sentence: the KL of TIC 0/1 of the first model engine at several bin counts
    (``metrics``: (protein, engine, metrics.json) records)."""
    for protein, engine, path in metrics:
        example = json.loads(Path(path).read_text()).get("kl_tic01_by_bins")
        if engine != GROUNDTRUTH and example:
            values = ", ".join(f"{bins} bins: {value:.3g}" for bins, value in example["values"].items())
            return (f"Binning sensitivity, once: KL(TIC 0/1) of {protein} / {engine} "
                    f"({example['weighting']} weights) is {values}.")
    return ""


def table_sections(tables: Mapping[str, object], settings: Mapping, metrics: Sequence[tuple[str, str, object]],
                   captions: Captions) -> tuple[dict, dict]:
    """The report's tables ({heading: DataFrame}) and their notes, from the CSVs of rule ``metric_tables``
    (``w1``, ``kl``, ``coverage``) and the ground-truth throughput (``throughput``).

    A note is the caption the rules declare for that CSV (``report/tables/*.rst``), plus what only this
    page shows: how intervals are written and, for KL, the binning-sensitivity example.
    """
    w1, kl = "Wasserstein-1 (W1)", "KL(ground truth || model)"
    coverage = "Coverage of the ground truth's TIC 0/1 plane and compute spent"
    reach = "Compute to reach each coverage threshold, and speed-up against the reference engine"
    throughput = "Ground-truth throughput"
    full = pd.read_csv(tables["coverage"])
    per_threshold = [c for c in full.columns if "_to_" in c]
    # Split so that each table fits a 1,400 px window: totals, then the per-threshold compute.
    frames = {w1: with_intervals(pd.read_csv(tables["w1"])), kl: with_intervals(pd.read_csv(tables["kl"])),
              coverage: full.drop(columns=per_threshold),
              reach: full[["protein", "engine", *per_threshold]],
              throughput: pd.read_csv(tables["throughput"])}
    interval = ("Shown here as value ± half-width of the 95 % bootstrap interval (full precision and the bounds "
                "in the CSV).") if settings["bootstrap"] else ""

    def note(caption: str, *more: str) -> Markup:
        extra = " ".join(text for text in more if text)
        return captions.html(caption) + (Markup("<p>{}</p>").format(extra) if extra else Markup(""))

    name = {role: Path(path).stem for role, path in tables.items()}  # a table's caption: its file's name
    notes = {w1: note(name["w1"], interval), kl: note(name["kl"], kl_sensitivity(metrics), interval),
             coverage: note(name["coverage"]),
             reach: Markup("<p>The per-threshold columns of the coverage table above (same CSV).</p>"),
             throughput: note(name["throughput"])}
    return frames, notes


def write_report(path, *, title: str, summary: Mapping, settings: Mapping, tables: Mapping[str, object],
                 metrics: Sequence[tuple[str, str, object]], densities: Sequence[tuple[str, object]] = (),
                 training_curves: Sequence[tuple[str, str, object]] = (),
                 protein_figures: Sequence[tuple[str, str, object]] = (),
                 captions: Mapping[str, str], caption_config: Mapping) -> None:
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
            Figure(curve, captions.html(Path(curve).stem, wildcards)))
    for protein, density in densities:
        section(protein).figures.insert(0, Figure(density, captions.html(Path(density).stem, {"protein": protein})))
    for protein, name, figure in protein_figures:
        section(protein).figures.append(Figure(figure, captions.html(name, {"protein": protein}), wide=name in WIDE))
    frames, table_notes = table_sections(tables, settings, metrics, captions)
    discard = settings["discard_iterations"]
    notes = [f"Weights: WE weights sum to one within each iteration; all iterations are pooled with their weights "
             f"as exported and normalized once, so every iteration counts equally. Leading iterations left out: "
             f"{discard if discard else 'none'} (metrics.discard_iterations)."]
    build_report(path, title=title, summary=summary, tables=frames, proteins=list(sections.values()), notes=notes,
                 table_notes=table_notes)
