"""The agent benchmark's own page (``results/report/agents.html``): the leaderboard with intervals, the
breakdown by difficulty and category, cost against success, trial outcomes, the process scorecards and the failure
analysis, a drill-down per task with links to every trial's records, the oracle gate with its near-miss and
mutation catch rates.

The page is a list of sections (:data:`SECTIONS`, in page order): each is a :class:`PageSection` whose
``build`` takes the :class:`AgentResults` and returns its HTML, or ``None`` to leave the section out. A new
section is one more :func:`register` call (the process scorecards and the failure analysis:
:mod:`westbench.report.agents_failures`); the page's contents list follows the registry. Files a later stage adds
(mutation testing: ``mutation.csv``, ``mutation_score.csv``, the ``mutation_*`` columns of ``gate.csv``; the
failure analysis's tables and figures) are shown when present and stated as "not run" when absent.

Ranking rule (:data:`RULE`), the same as the MD report's: agent A ranks above agent B only where A's Pass Rate
interval (Wilson 95 %) lies wholly above B's; otherwise they tie.

Examples
--------
>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> files = example_files(folder)
>>> write_agents_page(folder / "agents.html", files, title="agents", gate_agents=("oracle", "nop"))
>>> html = (folder / "agents.html").read_text()
>>> "<h2 id=\\"leaderboard\\">" in html, "Mutation testing: not run" in html, "trial.json" in html
(True, True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import jinja2
from markupsafe import Markup

import westbench.report.agents_failures  # noqa: F401 (process and failure sections, placed before the tasks')
import westbench.report.agents_sections  # noqa: F401 (registers the sections about the agents)
import westbench.report.agents_tasks  # noqa: F401 (then those about the tasks)
from westbench.report import agents_results
from westbench.report.agents_examples import example_failure_files, example_files  # noqa: F401 (synthetic inputs)
from westbench.report.agents_results import (  # noqa: F401 (the page's API)
    FILES,
    NOT_RUN,
    OPTIONAL,
    RULE,
    SECTIONS,
    AgentResults,
    PageSection,
    register,
)
from westbench.report.style import SCRIPT, STYLE

TEMPLATE = jinja2.Template(
    """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{ title }}</title>
{{ style }}{{ script }}</head><body>
<h1>{{ title }}</h1>
<p class="note">The agent benchmark of this results folder; the MD engine benchmark is in
<a href="westbench.html">westbench.html</a>. Click a figure to enlarge it.</p>
<nav class="contents"><ol>{% for s in sections %}<li><a href="#{{ s.key }}">{{ s.title }}</a></li>
{% endfor %}</ol></nav>
{% for s in sections %}<section><h2 id="{{ s.key }}">{{ s.title }}</h2>
{{ s.html }}
</section>
{% endfor %}
</body></html>
""",
    autoescape=True,
)


@dataclass
class _Rendered:
    key: str
    title: str
    html: Markup


def render_agents_page(results: AgentResults, title: str) -> str:
    """The page's HTML: every registered section that has something to show, in registry order."""
    rendered = []
    for entry in agents_results.SECTIONS:  # looked up now: a test may swap the registry
        html = entry.build(results)
        if html is not None:
            rendered.append(_Rendered(entry.key, entry.title, html))
    return TEMPLATE.render(title=title, sections=rendered, style=STYLE, script=SCRIPT)


def write_agents_page(
    path,
    files: Mapping[str, str | Path],
    *,
    title: str,
    gate_agents: Sequence[str] = ("oracle", "nop"),
    trial_files: Sequence[str | Path] = (),
    trial_log: str | None = None,
) -> None:
    """Write the agent page (rule ``agent_report``): ``files`` by role (:data:`FILES`), the gate's reference and
    null agent ids, the ``trial.json`` files (their Harbor folders are linked) and the trial rule's log pattern."""
    path = Path(path)
    results = AgentResults.read(files, path.parent, gate_agents, trial_files, trial_log)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_agents_page(results, title), encoding="utf-8")
