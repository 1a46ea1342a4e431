"""One trial's process scorecard (``process.json``), judged through the hardened judge.

The evidence is the judge's (:mod:`westbench.agents.judge`): the task instruction, the agent's logs (Harbor's
``agent/trajectory.json`` first) and deliverables, read confined to the trial, scrubbed of secrets, fenced as
untrusted JSON and judged in windows when long. Each item of the task (:meth:`TaskProcess.items`: the shared
items of the capabilities the task gives an opportunity for, then its own) is a criterion of kind ``anchored``
(0, 1, 2), judged ``repeats`` times over every window by
:func:`~westbench.agents.judge.trial.judge_criterion`, each window's verdict cached under a key holding the
item's full text (capability, question, anchors), the deliverables shown and the prompt template, so editing
an item rejudges that item only. A reply that is not one verdict is a judge error (the lowest anchor, never a
pass); without an endpoint every item is not judged (None) and so are the capabilities and the process.
:mod:`~westbench.agents.process.aggregate` turns the items into capability scores, coverage and process.

The scorecard also carries the trial's deterministic facts (:func:`westbench.agents.atif.trajectory_facts`).
A task without ``process.toml`` is not assessed (``assessed`` false, with the reason).

Examples
--------
>>> import json, tempfile
>>> root = Path(tempfile.mkdtemp())
>>> (root / "task").mkdir(); _ = (root / "task" / "instruction.md").write_text("Write out.txt.")
>>> _ = (root / "task" / "process.toml").write_text('[opportunities]\\ntool_state = "writes a file"\\n')
>>> trial = {"task": "t", "agent": "a", "model": "m", "attempt": 1, "trial_dir": None}
>>> settings = JudgeSettings("judge", "http://unused", None, repeats=3)
>>> card = score_trial(trial, root / "task", settings, None, call=lambda s, p: '{"value": 2}')
>>> card["covered"], card["coverage"], card["capabilities"]["tool_state"]["score"], card["process"]
(['tool_state'], 0.166667, 1.0, 1.0)
>>> score_trial(trial, root / "task", JudgeSettings.from_env({}), None)["process"] is None
True
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Callable, Mapping

from westbench.agents.atif import trajectory_facts
from westbench.agents.judge import (
    JudgeSettings,
    chat_completion,
    deliverable_texts,
    gather,
    judge_criterion,
    load_rubric,
    template_id,
    trajectory_parts,
)
from westbench.agents.process.aggregate import item_score, trial_scores
from westbench.agents.process.capabilities import CAPABILITIES, SharedRubric, shared_rubric, task_process

NOT_JUDGED = "no judge endpoint configured: items not judged (not passed)"


def score_trial(
    trial: Mapping,
    task_dir: str | Path,
    settings: JudgeSettings,
    cache_dir: str | Path | None,
    shared: SharedRubric | None = None,
    call: Callable = chat_completion,
) -> dict:
    """The process scorecard of one trial record (``trial.json``'s contents; module docstring)."""
    task_dir = Path(task_dir)
    shared = shared or shared_rubric()
    trial_dir = trial.get("trial_dir")
    record = {key: trial.get(key) for key in ("task", "agent", "model", "attempt")}
    record["facts"] = trajectory_facts(trial_dir)
    matrix = task_process(task_dir, shared)
    if matrix is None:
        return _not_assessed(record, task_dir)
    instruction = (task_dir / "instruction.md").read_text() if (task_dir / "instruction.md").is_file() else ""
    files = list(matrix.files) if matrix.files is not None else load_rubric(task_dir / "rubric.toml")["files"]
    evidence = gather(
        instruction,
        trajectory_parts(trial_dir, settings.file_limit_bytes),
        deliverable_texts(trial_dir, files, limit_bytes=settings.file_limit_bytes),
        settings.max_chars,
        settings.max_windows,
        settings.secret_values,
    )
    # what else a verdict depends on (the item's own text is its criterion): part of every cache key
    context = {"scorecard": "process", "rubric_version": shared.version, "files": files}
    items = [
        _judged_item(item, shared, context, instruction, evidence, settings, cache_dir, call)
        for item in matrix.items(shared)
    ]
    scores = trial_scores(
        {item["id"]: item["score"] for item in items},
        {item["id"]: item["capability"] for item in items},
        matrix.covered,
    )
    judged = bool(items) and all(item["judged"] for item in items)
    return {
        **record,
        "assessed": True,
        "judged": judged,
        "reason": "" if judged else NOT_JUDGED,
        "judge_model": settings.model if settings.configured else None,
        "repeats": settings.repeats,
        "aggregate": settings.aggregate,
        "prompt_template": template_id(),
        "rubric_version": shared.version,
        "capabilities": _capabilities(matrix, scores, items),
        "covered": scores["covered"],
        "coverage": scores["coverage"],
        "process": scores["process"],
        "items": items,
        "judge_errors": sum(len(item["judge_errors"]) for item in items),
        "windows": len(evidence.windows),
        "evidence_chars": evidence.length,
        "calls_per_item": 0 if evidence.incomplete else settings.repeats * len(evidence.windows),
        "incomplete": list(evidence.incomplete),
        "not_shown": evidence.not_shown,
    }


def _not_assessed(record: dict, task_dir: Path) -> dict:
    """The scorecard of a trial whose task has no ``process.toml``: not assessed, every field empty."""
    empty = {key: {"opportunity": False, "why": "", "score": None, "items": []} for key in CAPABILITIES}
    return {
        **record,
        "assessed": False,
        "judged": False,
        "reason": f"{task_dir.name} has no process.toml (its opportunity matrix): not assessed",
        "capabilities": empty,
        "covered": [],
        "coverage": None,
        "process": None,
        "items": [],
    }


def _judged_item(item, shared, context, instruction, evidence, settings, cache_dir, call) -> dict:
    """One item's record: its criterion judged over the evidence and its score (None when not judged)."""
    entry = judge_criterion(
        item.criterion(shared.capabilities), context, instruction, evidence, settings, cache_dir, call
    )
    score = item_score(entry["raw_values"], settings.aggregate) if entry["judged"] else None
    return {
        "id": item.id,
        "capability": item.capability,
        "source": item.source,
        "raw_values": entry["raw_values"],
        "score": None if score is None else round(score, 6),
        "judged": entry["judged"],
        "judge_errors": entry["judge_errors"],
    }


def _capabilities(matrix, scores: Mapping, items: list[dict]) -> dict:
    """Each capability's opportunity, why, score and the ids of its items."""
    return {
        key: {
            "opportunity": key in matrix.opportunities,
            "why": matrix.opportunities.get(key, ""),
            "score": scores["capabilities"][key],
            "items": [item["id"] for item in items if item["capability"] == key],
        }
        for key in CAPABILITIES
    }


def write_scorecard(
    trial_file: str | Path,
    task_dir: str | Path,
    judge: Mapping,
    cache_dir: str | Path | None,
    output: str | Path,
    environ: Mapping[str, str] | None = None,
) -> dict:
    """Score the trial of ``trial_file`` with the ``agents.judge`` settings ``judge`` (endpoint from ``environ``,
    default the process's) and write ``process.json`` to ``output`` (rule ``agent_process``)."""
    settings = JudgeSettings.from_section(os.environ if environ is None else environ, judge)
    card = score_trial(json.loads(Path(trial_file).read_text()), task_dir, settings, cache_dir)
    from westbench.io.records import write_json

    write_json(card, output)
    return card
