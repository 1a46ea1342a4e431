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

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import jinja2
import numpy as np
import pandas as pd
from markupsafe import Markup

import westbench.report.agents_failures  # noqa: F401 (process and failure sections, placed before the tasks')
import westbench.report.agents_sections  # noqa: F401 (registers the sections about the agents)
import westbench.report.agents_tasks  # noqa: F401 (then those about the tasks)
from westbench.report import agents_results
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


def example_files(folder, failures: bool = True) -> dict[str, Path]:
    """Small synthetic agent results in ``folder`` (two gate agents and one model agent over three tasks), for
    doctests and the browser test: the files by role, without mutation testing; with the failure analysis's
    tables and figures (:func:`example_failure_files`) unless ``failures`` is false."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    tasks = ["easy-one", "hard-two", "broken-three"]
    runs = [("oracle", "none"), ("nop", "none"), ("model-agent", "openai-gpt")]
    trials = []
    for task, difficulty in zip(tasks[:2], ("easy", "hard")):
        for agent, model in runs:
            correctness = {"oracle": 1.0, "nop": 0.0}.get(agent, 1.0 if difficulty == "easy" else 0.5)
            status = "passed" if correctness == 1.0 else "failed"
            trials.append(
                {
                    "task": task,
                    "agent": agent,
                    "model": model,
                    "attempt": 1,
                    "status": status,
                    "correctness": correctness,
                    "difficulty": difficulty,
                    "category": "analysis",
                    "cost_usd": 0.02 if agent == "model-agent" else np.nan,
                    "wall_s": 30.0,
                }
            )
    pd.DataFrame(trials).to_csv(folder / FILES["trials_table"], index=False)
    board = []
    for agent, model in runs:
        rate = {"oracle": 1.0, "nop": 0.0}.get(agent, 0.5)
        board.append(
            {
                "agent": agent,
                "model": model,
                "tasks": 2,
                "trials": 2,
                "pass_rate": rate,
                "pass_rate_lo": max(0.0, rate - 0.4),
                "pass_rate_hi": min(1.0, rate + 0.4),
                "fc_avg_score": 100 * rate,
                "fc_avg_score_lo": 0.0,
                "fc_avg_score_hi": 100.0,
                "mean_correctness": rate,
                "judged_share": 0.0,
                "strict_pass_at_1": np.nan,
                "cost_usd_per_task": 0.02 if agent == "model-agent" else np.nan,
                "wall_s_median": 30.0,
                "wall_s_p90": 30.0,
                "n_passed": int(2 * rate),
                "n_failed": 2 - int(2 * rate),
                "gated_tasks": 2,
                "near_miss_catch_rate": 1.0,
                "near_misses": 2,
            }
        )
    pd.DataFrame(board).to_csv(folder / FILES["leaderboard"], index=False)
    by_tag = [
        {
            "agent": a,
            "model": m,
            "tag": tag,
            "value": value,
            "tasks": 1,
            "pass_rate": 1.0 if a == "oracle" else 0.0,
            "pass_rate_lo": 0.2,
            "pass_rate_hi": 1.0,
        }
        for a, m in runs
        for tag, value in (("difficulty", "easy"), ("difficulty", "hard"), ("category", "analysis"))
    ]
    pd.DataFrame(by_tag).to_csv(folder / FILES["by_tag"], index=False)
    gate = pd.DataFrame(
        {
            "task": tasks,
            "passed": [True, True, False],
            "reason": ["", "", "oracle scored 0.5"],
            "near_misses": [1, 1, 0],
            "near_miss_caught": [1, 1, 0],
            "near_miss_missed": ["", "", ""],
            "near_miss_max": [0.5, 0.0, np.nan],
        }
    )
    gate.to_csv(folder / FILES["gate"], index=False)
    summary = {
        "passed": tasks[:2],
        "failed": {tasks[2]: "oracle scored 0.5"},
        "near_miss_catch_rate": {"near_misses": 2, "caught": 2, "catch_rate": 1.0, "tasks_with_near_misses": 2},
    }
    (folder / FILES["gate_summary"]).write_text(json.dumps(summary))
    if failures:
        example_failure_files(folder)
    return {role: folder / name for role, name in FILES.items() if (folder / name).is_file()}


def example_failure_files(folder) -> None:
    """The failure analysis's tables and figures in ``folder`` from synthetic trials of one model agent (twelve,
    judged) and the gate's agents, made by the analysis's own functions (:mod:`westbench.agents.failures`); drawn
    once per process (:func:`_example_failure_bytes`) and copied, since many tests ask for them."""
    folder = Path(folder)
    for name, data in _example_failure_bytes().items():
        (folder / name).write_bytes(data)


@functools.lru_cache(maxsize=1)
def _example_failure_bytes() -> dict[str, bytes]:
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        _draw_example_failure_files(Path(scratch))
        return {path.name: path.read_bytes() for path in Path(scratch).iterdir()}


def _draw_example_failure_files(folder: Path) -> None:
    from westbench.agents.failures import breach_table, completion_table, process_correlation, tool_error_table
    from westbench.agents.failures.figures import plot_breaches, plot_failures, plot_process
    from westbench.agents.process import CAPABILITIES, agent_profile

    rng = np.random.default_rng(7)
    rows, cards = [], []
    for k in range(12):
        passed = k % 3 != 0
        rows.append(
            {
                "task": f"task-{k % 4}",
                "agent": "model-agent",
                "model": "openai-gpt",
                "attempt": 1 + k // 4,
                "difficulty": ("easy", "hard")[k % 2],
                "category": ("analysis", "setup")[k % 4 // 2],
                "outcome": "passed" if passed else "not passed",
                "trajectory": "read",
                "completion": "claims" if passed or k % 2 else "hedged",
                "completion_call": True,
                "tool_results": 10,
                "tool_errors": int(k % 4 == 0) + int(not passed),
                "last_tool_result_error": not passed and k % 2 == 0,
                "missing_deliverable": not passed and k % 2 == 0,
                "failed_check": not passed,
                "judge_shortfall": not passed,
                "signature": ("missing deliverable" if k % 2 == 0 else "failed check") if not passed else "none",
            }
        )
        process = float(np.clip((0.8 if passed else 0.35) + rng.normal(0, 0.1), 0, 1))
        covered = CAPABILITIES[: 3 + k % 4]
        cards.append(
            {
                **{key: rows[-1][key] for key in ("task", "agent", "model", "attempt")},
                "task_score": 1.0 if passed else 0.5,
                "judged": True,
                "coverage": len(covered) / len(CAPABILITIES),
                "process": process,
                **{key: (process if key in covered else None) for key in CAPABILITIES},
            }
        )
    for agent in ("oracle", "nop"):
        for task in ("task-0", "task-1"):
            rows.append(
                {
                    "task": task,
                    "agent": agent,
                    "model": "none",
                    "attempt": 1,
                    "difficulty": "easy",
                    "category": "analysis",
                    "outcome": "passed" if agent == "oracle" else "not passed",
                    "trajectory": "absent",
                    "missing_deliverable": agent == "nop",
                    "failed_check": agent == "nop",
                    "judge_shortfall": None,
                    "signature": "none" if agent == "oracle" else "missing deliverable",
                }
            )
    trials, process = pd.DataFrame(rows), pd.DataFrame(cards)
    summary = agent_profile(process, seed=1, resamples=200).assign(agent="model-agent", model="openai-gpt")
    correlation = process_correlation(process, seed=1, resamples=200, min_trials=5)
    tables = {
        "process_table": process,
        "process_summary": summary,
        "process_correlation": correlation,
        "completion": completion_table(trials),
        "tool_errors": tool_error_table(trials),
        "breaches": breach_table(trials),
    }
    for role, table in tables.items():
        table.to_csv(folder / FILES[role], index=False)
    plot_process(summary, process, correlation, folder / FILES["process_figure"])
    plot_failures(tables["completion"], tables["tool_errors"], folder / FILES["failures_figure"])
    plot_breaches(tables["breaches"][tables["breaches"]["agent"] == "model-agent"], folder / FILES["breaches_figure"])
