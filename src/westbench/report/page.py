"""The HTML report's page (Jinja2): the bottom line, what the run could detect, the figures a reader looks for first
(per protein), the calibration study, the run's settings and caveats, the tables, each protein's engine sections,
and the definitions of every quantity shown. :func:`westbench.report.html_report.build_report` fills it."""

import jinja2

TEMPLATE = jinja2.Template(
    """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{ title }}</title>
{{ style }}{{ script }}</head><body>
<h1>{{ title }}</h1>
<nav class="contents"><ol>{% for key, heading in contents %}<li><a href="#{{ key }}">{{ heading }}</a></li>
{% endfor %}</ol></nav>
{% if overview %}<section class="bottom-line">{{ overview }}</section><!-- end of the bottom line -->{% endif %}
{% if figured %}<section><h2 id="figures">Figures</h2>
<p class="note">What a reader of the published benchmark looks for first: per protein, the ground truth's TIC 0/1
density, every engine's TIC 0/1 contours against it, coverage against compute and each CG model's training curve.
Each engine's own figures follow its table further down.</p>
{% for protein in figured %}<h3 id="figures-{{ anchors[protein.name] }}">{{ protein.name }}</h3>
{% for figure in protein.figures %}<figure{% if figure.wide %} class="wide"{% endif %}><img
src="data:image/png;base64,{{ figure.data }}" alt="{{ figure.alt }}">
<figcaption>{{ figure.caption }}</figcaption></figure>{% endfor %}
{% endfor %}</section>{% endif %}
{% if detection %}<section class="detection">{{ detection }}</section>{% endif %}
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
{{ caveats_defined }}<div class="scroll">{{ caveats }}</div>
{% else %}<p>None: every metric of every engine was estimated, and no frame was dropped.</p>
{% endif %}</div>
{% for name, table in tables.items() %}<section><h2 id="{{ anchors[name] }}">{{ name }}</h2>
{% if name in table_notes %}<div class="note">{{ table_notes[name] }}</div>{% endif %}
<div class="scroll">{{ table }}</div>{{ defined[name] }}</section>
{% endfor %}
{% for protein in proteins %}{% if protein.engines %}<section>
<h2 id="{{ anchors[protein.name] }}">{{ protein.name }}</h2>
{% for engine in protein.engines %}<h3>{{ protein.name }}: {{ engine.name }}</h3>
{% if engine.note %}<div class="note">{{ engine.note }}</div>{% endif %}
<div class="scroll">{{ engine.table }}</div>{{ engine_defined(engine.table) }}
{% for figure in engine.figures %}<figure{% if figure.wide %} class="wide"{% endif %}><img
src="data:image/png;base64,{{ figure.data }}" alt="{{ figure.alt }}">
<figcaption>{{ figure.caption }}</figcaption></figure>{% endfor %}
{% endfor %}</section>{% endif %}{% endfor %}
{{ definitions }}
</body></html>
""",
    autoescape=True,
)
