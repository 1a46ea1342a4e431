"""The HTML report of one configuration: tables across proteins and engines, then figures per protein and engine.

One self-contained file (figures embedded as PNG data), so it can be mailed or
archived with the configuration that produced it. Rendered with Jinja2.

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import jinja2
import pandas as pd
from markupsafe import Markup

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
{% if name in table_notes %}<p class="note">{{ table_notes[name] }}</p>{% endif %}
<div class="scroll">{{ table }}</div>
{% endfor %}
{% for protein in proteins %}<h2>{{ protein.name }}</h2>
{% for figure in protein.figures %}<figure{% if figure.wide %} class="wide"{% endif %}><img src="data:image/png;base64,{{ figure.data }}" alt="{{ figure.caption }}">
<figcaption>{{ figure.caption }}</figcaption></figure>{% endfor %}
{% for engine in protein.engines %}<h3>{{ protein.name }}: {{ engine.name }}</h3>
{% if engine.note %}<p class="note">{{ engine.note }}</p>{% endif %}
<div class="scroll">{{ engine.table }}</div>
{% for figure in engine.figures %}<figure{% if figure.wide %} class="wide"{% endif %}><img src="data:image/png;base64,{{ figure.data }}" alt="{{ figure.caption }}">
<figcaption>{{ figure.caption }}</figcaption></figure>{% endfor %}
{% endfor %}{% endfor %}
</body></html>
""", autoescape=True)


@dataclass
class Figure:
    path: Path
    caption: str
    wide: bool = False  # several panels: drawn at the page's full width

    @property
    def data(self) -> str:
        return base64.b64encode(Path(self.path).read_bytes()).decode("ascii")


@dataclass
class EngineSection:
    name: str
    table: Markup = Markup("")
    figures: list[Figure] = field(default_factory=list)
    note: str = ""


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
