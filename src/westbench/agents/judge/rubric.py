"""A task's ``rubric.toml`` and how its criteria are decided over the judge's repeats.

Counting (MDArena): a binary criterion is met by a 1; a Likert criterion (1-5) is met at
``likert_threshold`` (default 4) or above; an anchored criterion (0/1/2, each value described by an anchor:
the process scorecards' items, :mod:`westbench.agents.process`) at its top anchor, 2. Over the ``repeats`` a
criterion is decided by ``aggregate``: ``majority`` (met in more than half of the repeats; a tie is not met)
or ``mean`` (the mean raw value against the threshold: 0.5 for binary, 1.5 for anchored, ``likert_threshold``
for Likert). A repeat that was a judge error (``None``) never meets a criterion. Values in [0, 1] map each
scale linearly (:func:`unit_value`: Likert by (v - 1) / 4, anchored by v / 2), FrontierChallenge's averaged
judge score.

Examples
--------
>>> criterion_met([5, 3, 4], "likert"), criterion_met([3, 3, 5], "likert"), criterion_met([1, 0], "binary")
(True, False, False)
>>> criterion_met([5, 3, 3], "likert", rule="mean"), criterion_met([1, 0, 1], "binary", rule="mean")
(False, True)
>>> unit_value(4, "likert"), unit_value(None, "binary"), unit_value(1, "anchored")
(0.75, 0.0, 0.5)
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from westbench.agents.judge.settings import JUDGE_DEFAULTS, JudgeError

#: Criterion kinds and their scales (lowest, highest).
SCALES = {"binary": (0, 1), "likert": (1, 5), "anchored": (0, 2)}
KINDS = tuple(SCALES)
AGGREGATES = ("majority", "mean")


def load_rubric(path: str | Path) -> dict:
    """Read ``rubric.toml``: ``files`` (deliverables shown to the judge) and ``[[criteria]]``.

    A missing file is an empty rubric; a criterion without ``id``, ``question`` or a known ``type`` is a
    :class:`~westbench.agents.judge.settings.JudgeError` naming the file. (``anchored``, the process
    scorecards' kind, is for :mod:`westbench.agents.process`; a task's rubric holds binary and Likert criteria.)
    """
    path = Path(path)
    if not path.is_file():
        return {"files": [], "criteria": []}
    rubric = tomllib.loads(path.read_text())
    for criterion in rubric.get("criteria", []):
        if criterion.get("type") not in KINDS or not criterion.get("id") or not criterion.get("question"):
            raise JudgeError(f"{path}: every [[criteria]] needs id, question and type binary|likert; got {criterion}")
        if criterion["type"] == "anchored":
            raise JudgeError(f"{path}: a rubric criterion is binary or likert (anchored items live in process.toml)")
    return {"files": list(rubric.get("files", [])), "criteria": list(rubric.get("criteria", []))}


def unit_value(raw: float | None, kind: str) -> float:
    """A raw verdict in [0, 1], its scale (:data:`SCALES`) mapped linearly: binary as is, Likert by (v - 1) / 4,
    anchored by v / 2; a judge error (None) is 0."""
    if raw is None:
        return 0.0
    lowest, highest = SCALES[kind]
    return (float(raw) - lowest) / (highest - lowest)


def criterion_met(
    raw_values,
    kind: str,
    rule: str = JUDGE_DEFAULTS["aggregate"],
    likert_threshold: float = JUDGE_DEFAULTS["likert_threshold"],
) -> bool:
    """Whether a criterion is met over its repeats (raw values; see the module docstring for the rules).

    >>> criterion_met([1, None, None], "binary"), criterion_met([1, 1, None], "binary")
    (False, True)
    >>> criterion_met([2, 1, 2], "anchored"), criterion_met([2, 1, 1], "anchored", rule="mean")
    (True, False)
    """
    if not raw_values:
        raise ValueError("a criterion needs at least one judged repeat")
    if rule not in AGGREGATES:
        raise ValueError(f"judge aggregate must be one of {AGGREGATES}, got {rule!r}")
    # met at the top of a scale of a few values (binary, anchored); Likert at its threshold
    threshold = float(likert_threshold) if kind == "likert" else float(SCALES[kind][1])
    if rule == "majority":
        return 2 * sum(value is not None and value >= threshold for value in raw_values) > len(raw_values)
    worst = float(SCALES[kind][0])  # a judge error (None) counts as the worst answer
    values = [worst if value is None else value for value in raw_values]
    # the mean rule: halfway between the top and the value below it (0.5 binary, 1.5 anchored)
    return sum(values) / len(values) >= (threshold if kind == "likert" else threshold - 0.5)
