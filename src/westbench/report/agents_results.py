"""What the agent benchmark's page (:mod:`westbench.report.agents_page`) reads and how it is built: the files by
role (:data:`FILES`), the results read once (:class:`AgentResults`), the registry of sections (:data:`SECTIONS`,
:func:`register`) and the formatting every section shares (:func:`interval`, :func:`agent_label`,
:func:`pass_rate_ranks`).

A section is a function of the :class:`AgentResults` that returns its HTML, or None to leave it out, registered
with its anchor and heading; the page shows the registered sections in registry order (the built-in ones:
:mod:`westbench.report.agents_sections`, :mod:`westbench.report.agents_tasks`).

Ranking rule (:data:`RULE`), the same as the MD report's: agent A ranks above agent B only where A's Pass Rate
interval (Wilson 95 %) lies wholly above B's; otherwise they tie.

Examples
--------
>>> interval(0.5, 0.2366, 0.7634), agent_label("terminus-2", "openai-gpt-4o"), agent_label("oracle", "none")
('50 % [23, 77]', 'terminus-2 / openai-gpt-4o', 'oracle')
"""

from __future__ import annotations

import base64
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
from markupsafe import Markup

#: The files the page reads, by role; those in :data:`OPTIONAL` may be absent (a stage that did not run).
FILES = {
    "leaderboard": "leaderboard.csv",
    "by_tag": "leaderboard_by_tag.csv",
    "trials_table": "trials.csv",
    "gate": "gate.csv",
    "gate_summary": "gate.json",
    "leaderboard_figure": "leaderboard.png",
    "outcomes_figure": "outcomes.png",
    "cost_figure": "cost_vs_success.png",
    "suite": "suite_composition.csv",
    "mutation": "mutation.csv",
    "mutation_score": "mutation_score.csv",
    # the process and failure analysis (rule agent_failures)
    "process_table": "process.csv",
    "process_summary": "process_summary.csv",
    "process_correlation": "process_correlation.csv",
    "completion": "completion_claims.csv",
    "tool_errors": "tool_errors.csv",
    "breaches": "breaches.csv",
    "process_figure": "process.png",
    "failures_figure": "failures.png",
    "breaches_figure": "breaches.png",
}
#: The tables of later stages, read into :attr:`AgentResults.tables` when present.
EXTRA_TABLES = ("process_table", "process_summary", "process_correlation", "completion", "tool_errors", "breaches")
OPTIONAL = (
    "by_tag",
    "suite",
    "mutation",
    "mutation_score",
    "leaderboard_figure",
    "outcomes_figure",
    "cost_figure",
    *EXTRA_TABLES,
    "process_figure",
    "failures_figure",
    "breaches_figure",
)
RULE = (
    "Ranking rule: agent A ranks above agent B only where A's Pass Rate interval (Wilson 95 %) lies wholly above "
    "B's; otherwise they tie (tied agents share a rank)."
)
NOT_RUN = "not run"


@dataclass
class AgentResults:
    """Everything the page shows, read once (:meth:`read`); ``page_dir``: where the page is written, for links."""

    leaderboard: pd.DataFrame
    trials: pd.DataFrame
    gate: pd.DataFrame
    gate_summary: Mapping
    page_dir: Path
    by_tag: pd.DataFrame | None = None
    suite: pd.DataFrame | None = None
    mutation: pd.DataFrame | None = None
    mutation_score: pd.DataFrame | None = None
    figures: dict[str, Path] = field(default_factory=dict)
    gate_agents: tuple[str, str] = ("oracle", "nop")
    trial_records: dict[tuple, Mapping] = field(default_factory=dict)  # (task, agent, model, attempt): trial.json
    trial_files: dict[tuple, Path] = field(default_factory=dict)
    trial_log: str | None = None  # the trial rule's log pattern ({task}, {agent}, {model}, {attempt})
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)  # EXTRA_TABLES present, by role

    @classmethod
    def read(
        cls,
        files: Mapping[str, str | Path],
        page_dir,
        gate_agents: Sequence[str] = ("oracle", "nop"),
        trial_files: Sequence[str | Path] = (),
        trial_log: str | None = None,
    ) -> "AgentResults":
        """Read the files by role (:data:`FILES`); an optional one missing or absent is None."""
        missing = [role for role in FILES if role not in OPTIONAL and role not in files]
        if missing:
            raise ValueError(f"the agent page needs the files {missing} (roles of westbench.report.agents_page.FILES)")

        def table(role):
            path = files.get(role)
            return pd.read_csv(path) if path and Path(path).is_file() else None

        records, paths = {}, {}
        for path in trial_files:
            record = json.loads(Path(path).read_text())
            key = (record.get("task"), record.get("agent"), record.get("model"), int(record.get("attempt", 1)))
            records[key], paths[key] = record, Path(path)
        return cls(
            leaderboard=table("leaderboard"),
            trials=table("trials_table"),
            gate=table("gate"),
            gate_summary=json.loads(Path(files["gate_summary"]).read_text()),
            page_dir=Path(page_dir),
            by_tag=table("by_tag"),
            suite=table("suite"),
            mutation=table("mutation"),
            mutation_score=table("mutation_score"),
            figures={
                role: Path(files[role])
                for role, name in FILES.items()
                if name.endswith(".png") and files.get(role) and Path(files[role]).is_file()
            },
            gate_agents=tuple(gate_agents),
            trial_records=records,
            trial_files=paths,
            trial_log=trial_log,
            tables={role: frame for role in EXTRA_TABLES if (frame := table(role)) is not None},
        )

    def link(self, target: str | Path) -> str:
        """``target`` (relative to the working directory, or absolute) as a link relative to the page."""
        return Path(os.path.relpath(Path(target).absolute(), self.page_dir.absolute())).as_posix()

    def agents(self) -> list[tuple[str, str]]:
        """(agent, model) of the leaderboard, in its order."""
        return list(zip(self.leaderboard["agent"], self.leaderboard["model"]))


@dataclass(frozen=True)
class PageSection:
    """One section of the page: its anchor ``key``, heading and builder (None: left out)."""

    key: str
    title: str
    build: Callable[[AgentResults], Markup | None]


SECTIONS: list[PageSection] = []


def register(key: str, title: str, before: str | None = None):
    """Decorator: add a section builder to :data:`SECTIONS` (at the end, or before section ``before``)."""

    def add(build):
        entry = PageSection(key, title, build)
        if any(s.key == key for s in SECTIONS):
            raise ValueError(f"agent page section {key!r} is registered twice")
        position = next((i for i, s in enumerate(SECTIONS) if s.key == before), len(SECTIONS))
        SECTIONS.insert(position, entry)
        return build

    return add


# ---- formatting -------------------------------------------------------------------------------------------------


def finite(value) -> bool:
    try:
        return bool(np.isfinite(float(value)))
    except (TypeError, ValueError):
        return False


def interval(value, low, high, scale: float = 100.0, unit: str = " %") -> str:
    """``50 % [24, 76]``: a rate (``scale`` 100) or a score (``scale`` 1, ``unit`` "") with its interval; "—"
    when undefined.

    Examples
    --------
    >>> interval(0.5, 0.2366, 0.7634), interval(61.0, 40.2, 80.0, scale=1, unit=""), interval(None, None, None)
    ('50 % [23, 77]', '61 [40, 80]', '—')
    """
    if not finite(value):
        return "—"
    text = f"{scale * float(value):.0f}{unit}"
    if finite(low) and finite(high):
        text += f" [{np.floor(scale * float(low)):.0f}, {np.ceil(scale * float(high)):.0f}]"
    return text


def agent_label(agent: str, model: str) -> str:
    """``agent / model``, or the agent alone when it has no model."""
    return agent if model in (None, "", "none") or model != model else f"{agent} / {model}"


def figure(path: Path, caption: str) -> Markup:
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return Markup(
        '<figure class="wide"><img src="data:image/png;base64,{}" alt="{}"><figcaption>{}</figcaption></figure>'
    ).format(data, caption, caption)


def pass_rate_ranks(board: pd.DataFrame) -> list:
    """Each row's rank by :data:`RULE` (one plus the agents whose Pass Rate interval lies wholly above its own).

    Examples
    --------
    >>> board = pd.DataFrame({"pass_rate_lo": [0.7, 0.1, 0.5], "pass_rate_hi": [0.95, 0.4, 0.9]})
    >>> pass_rate_ranks(board)  # the second lies below both others; the first and third overlap: a tie
    [1, 3, 1]
    """
    lows, highs = board["pass_rate_lo"].astype(float).tolist(), board["pass_rate_hi"].astype(float).tolist()
    ranks = []
    for i in range(len(board)):
        if not (finite(lows[i]) and finite(highs[i])):
            ranks.append(pd.NA)
            continue
        ranks.append(1 + sum(finite(lows[j]) and lows[j] > highs[i] for j in range(len(board)) if j != i))
    return ranks
