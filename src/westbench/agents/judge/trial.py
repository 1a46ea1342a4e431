"""Judging one trial's process criteria: every criterion, every repeat, every window, cached.

For each criterion of the rubric, ``repeats`` times, every window of the evidence
(:mod:`~westbench.agents.judge.evidence`) is judged by its own call and the window verdicts are combined
(:func:`~westbench.agents.judge.verdict.combine`: the worst window's value) into the repeat's value; a judge
error in any window makes the repeat a judge error (``None``: not met). The repeats decide the criterion
(:func:`~westbench.agents.judge.rubric.criterion_met`). A criterion costs ``repeats x windows`` calls,
at most ``repeats x max_windows``; evidence that is incomplete is not sent at all and every repeat is a
judge error. Without an endpoint every criterion is reported as not judged (``value`` None), never as passed.

Every call's verdict is cached under :func:`cache_key`: a hash of the criterion, the rubric, the model,
the instruction, the window's evidence document, the repeat, the prompt template and the call settings,
so a rerun costs nothing and a changed prompt or window is judged anew. A cache entry holds the verdict,
the reply (its first 2000 characters), the model, the template and the time: no key, no environment, no
evidence. Judge errors are not cached.

Examples
--------
>>> from westbench.agents.judge.settings import JudgeSettings
>>> settings = JudgeSettings("judge", "http://unused", None, repeats=3)
>>> rubric = {"files": [], "criteria": [{"id": "c", "type": "binary", "question": "Ran the tests?"}]}
>>> result = judge_trial(rubric, "Fix it.", "ran pytest", {}, settings, None, call=lambda s, p: '{"value": 1}')
>>> result["process"], result["criteria"][0]["raw_values"], result["windows"], result["calls_per_criterion"]
(1.0, [1.0, 1.0, 1.0], 1, 3)
>>> judge_trial(rubric, "task", "", {}, JudgeSettings.from_env({}), None)["process"] is None
True
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Callable, Mapping

from westbench.agents.judge.confined import Unread
from westbench.agents.judge.endpoint import chat_completion
from westbench.agents.judge.evidence import Evidence, gather
from westbench.agents.judge.prompt import messages, template_id
from westbench.agents.judge.rubric import criterion_met, unit_value
from westbench.agents.judge.settings import JudgeError, JudgeSettings
from westbench.agents.judge.verdict import Verdict, combine, read_verdict

#: Characters of a reply kept in the cache and in judge.json.
ANSWER_CHARS = 2000


def cache_key(
    criterion: Mapping,
    rubric: Mapping,
    model: str,
    document: str,
    repeat: int,
    instruction: str = "",
    settings: Mapping | None = None,
) -> str:
    """SHA-256 of everything a verdict depends on: criterion, rubric, model, instruction, the window's evidence
    document, repeat, the prompt template (:func:`~westbench.agents.judge.prompt.template_id`) and the call
    settings (temperature, ``max_chars``, ``max_windows``).

    >>> criterion = {"id": "c", "type": "binary", "question": "?"}
    >>> cache_key(criterion, {}, "m", "{}", 0) != cache_key(criterion, {}, "m", "{}", 1)
    True
    """
    blob = json.dumps(
        {
            "criterion": criterion,
            "rubric": rubric,
            "model": model,
            "instruction": instruction,
            "evidence": document,
            "repeat": repeat,
            "template": template_id(),
            "settings": dict(settings or {}),
        },
        sort_keys=True,
    )
    return hashlib.sha256(blob.encode()).hexdigest()


def _window_verdict(criterion, rubric, instruction, evidence: Evidence, index, repeat, settings, cache_dir, call):
    """One window's verdict (cached) and the error, if its reply was not one."""
    document = evidence.document(index)
    key = cache_key(criterion, rubric, settings.model, document, repeat, instruction, settings.call_settings)
    cached = Path(cache_dir) / f"{key}.json" if cache_dir else None
    entry = json.loads(cached.read_text()) if cached is not None and cached.is_file() else None
    if entry is not None and "raw" in entry and "against" in entry:
        return Verdict(entry["raw"], entry["against"]), None
    window = None
    if len(evidence.windows) > 1:
        start, end = evidence.span(index)
        window = {"index": index + 1, "count": len(evidence.windows), "start": start, "end": end}
        window["length"] = evidence.length
    text = call(settings, messages(criterion, instruction, document, window))
    try:
        verdict = read_verdict(text, criterion["type"])
    except JudgeError as exc:  # a reply that is not one clear verdict: recorded, never a pass
        return None, f"window {index + 1}: {exc}" if window else str(exc)
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        record = {
            "raw": verdict.value,
            "against": verdict.against,
            "answer": text[:ANSWER_CHARS],
            "model": settings.model,
            "template": template_id(),
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        partial = cached.with_suffix(f".{os.getpid()}.tmp")  # a job stopped mid-write leaves no broken entry
        partial.write_text(json.dumps(record, indent=2))
        partial.replace(cached)
    return verdict, None


def judge_criterion(
    criterion: Mapping,
    context: Mapping,
    instruction: str,
    evidence: Evidence,
    settings: JudgeSettings,
    cache_dir: str | Path | None,
    call: Callable[[JudgeSettings, list[dict]], str] = chat_completion,
) -> dict:
    """One criterion judged ``repeats`` times over every window of ``evidence`` (module docstring), cached.

    ``context`` is what else the verdict depends on besides the criterion (the whole rubric for
    :func:`judge_trial`; the process scorecards pass their deliverables and version): part of every cache key.
    Returns the criterion's record: ``raw_values`` per repeat (None: a judge error), ``values`` in [0, 1],
    their mean ``value``, ``passed`` (:func:`~westbench.agents.judge.rubric.criterion_met`), ``judged`` and
    ``judge_errors``; without an endpoint nothing is judged (``value`` and ``passed`` None).

    >>> from westbench.agents.judge.evidence import gather
    >>> item = {"id": "i", "type": "anchored", "question": "Repaired what failed? 0 = no, 1 = partly, 2 = yes"}
    >>> settings = JudgeSettings("judge", "http://unused", None, repeats=2)
    >>> entry = judge_criterion(item, {}, "task", gather("task", "log", {}, 4000, 8), settings, None,
    ...                         call=lambda s, p: '{"value": 1}')
    >>> entry["raw_values"], entry["value"], entry["passed"]
    ([1.0, 1.0], 0.5, False)
    """
    entry = {
        "id": criterion["id"],
        "type": criterion["type"],
        "question": criterion["question"],
        "raw_values": [],
        "values": [],
        "value": None,
        "passed": None,
        "judged": False,
        "judge_errors": [],
    }
    if not settings.configured:
        return entry
    for repeat in range(settings.repeats):
        verdicts, error = [], None
        if evidence.incomplete:
            error = "evidence not judged: " + "; ".join(evidence.incomplete)
        for index in range(len(evidence.windows) if error is None else 0):
            verdict, error = _window_verdict(
                criterion, context, instruction, evidence, index, repeat, settings, cache_dir, call
            )
            if error:
                break
            verdicts.append(verdict)
        raw = None if error else combine(verdicts, criterion["type"])
        if error:
            entry["judge_errors"].append(error)
        entry["raw_values"].append(raw)
        entry["values"].append(unit_value(raw, criterion["type"]))
    entry["value"] = sum(entry["values"]) / len(entry["values"])
    entry["passed"] = criterion_met(
        entry["raw_values"], criterion["type"], settings.aggregate, settings.likert_threshold
    )
    entry["judged"] = True
    return entry


def judge_trial(
    rubric: Mapping,
    instruction: str,
    trajectory: str | Mapping[str, str | Unread],
    files: Mapping[str, str | Unread],
    settings: JudgeSettings,
    cache_dir: str | Path | None,
    call: Callable[[JudgeSettings, list[dict]], str] = chat_completion,
) -> dict:
    """Judge every criterion (module docstring); the record ``judge.json`` holds, None scores if not judged.

    Parameters
    ----------
    rubric : mapping
        ``criteria`` (``id``, ``type``, ``question``) and ``files``, as :func:`load_rubric` reads them.
    instruction : str
        The task instruction (trusted).
    trajectory, files : str or mapping
        The agent's logs and the deliverables by name, as texts or
        :class:`~westbench.agents.judge.confined.Unread` (:mod:`~westbench.agents.judge.collect`).
    settings : JudgeSettings
        The endpoint and limits.
    cache_dir : path or None
        Where verdicts are cached (None: no cache).
    call : callable
        ``call(settings, messages) -> reply text`` (default: the endpoint).
    """
    evidence = gather(instruction, trajectory, files, settings.max_chars, settings.max_windows, settings.secret_values)
    criteria = [
        judge_criterion(criterion, rubric, instruction, evidence, settings, cache_dir, call)
        for criterion in rubric.get("criteria", [])
    ]
    judged = [c for c in criteria if c["judged"]]
    complete = bool(criteria) and len(judged) == len(criteria)
    return {
        "judged": complete,
        "judge_model": settings.model if settings.configured else None,
        "repeats": settings.repeats,
        "aggregate": settings.aggregate,
        "likert_threshold": settings.likert_threshold,
        "max_chars": settings.max_chars,
        "max_windows": settings.max_windows,
        "evidence_chars": evidence.length,
        "windows": len(evidence.windows),
        "calls_per_criterion": 0 if evidence.incomplete else settings.repeats * len(evidence.windows),
        "incomplete": list(evidence.incomplete),
        "not_shown": evidence.not_shown,
        "reason": ""
        if complete
        else (
            "no rubric criteria" if not criteria else "no judge endpoint configured: criteria not judged (not passed)"
        ),
        "criteria": criteria,
        "judge_errors": sum(len(c["judge_errors"]) for c in criteria),
        "prompt_template": template_id(),
        "process": sum(bool(c["passed"]) for c in judged) / len(judged) if complete else None,
        "process_mean": sum(c["value"] for c in judged) / len(judged) if complete else None,
        "all_passed": all(c["passed"] for c in criteria) if complete else None,
    }
