"""A judge's reply read as exactly one verdict, or a judge error; the verdicts of a criterion's windows combined.

With or without structured output the reply must be exactly one JSON object (whitespace and one Markdown
code fence around it allowed, nothing else): a second object, prose before or after it, a duplicate key
(``{"value": 0, "value": 1}``), ``NaN``, ``Infinity`` or a number too large for a float, keys other than
``value``, ``against`` and ``why``, a ``value`` that is not an integer on the criterion's scale, an
``against`` that is not a boolean or a ``why`` that is not text: each is a
:class:`~westbench.agents.judge.settings.JudgeError`, which the judge records and counts as the criterion
not met, never as a pass. ``against`` may be left out (false) where the endpoint took no schema.

Windows (:func:`combine`): a repeat's value is the *worst* window's, and the scale's worst when any window is
``against`` the criterion. So padding cannot raise a score whatever the judge model answers: adding windows
only adds values to take the lowest of, and a window that shows the criterion unmet (``against`` or not)
fails it. Every window sees the index of the whole evidence's claims and failures
(:mod:`~westbench.agents.judge.digest`), so a window without the step asked for still sees what the run
claimed and what failed; and every window must be judged (a judge error in one errs the repeat).

Examples
--------
>>> read_verdict('{"value": 4, "against": false, "why": "clear"}', "likert")
Verdict(value=4.0, against=False, why='clear')
>>> parse_verdict('```json\\n{"value": 4}\\n```', "likert")
0.75
>>> read_verdict('{"value": 0} The log says {"value": 1}', "binary")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
westbench.agents.judge.settings.JudgeError: the judge's reply is not exactly one JSON object: Extra data: ...
>>> met, unmet, against = Verdict(1.0, False), Verdict(0.0, False), Verdict(1.0, True)
>>> combine([met, met], "binary"), combine([met, unmet], "binary"), combine([met, against], "binary")
(1.0, 0.0, 0.0)
"""

from __future__ import annotations

import json
import math
import re
from typing import NamedTuple, Sequence

from westbench.agents.judge.rubric import SCALES, unit_value
from westbench.agents.judge.settings import JudgeError

VERDICT_KEYS = frozenset({"value", "against", "why"})
_FENCE = re.compile(r"```(?:json)?[ \t]*\n?(.*?)\n?[ \t]*```", re.DOTALL | re.IGNORECASE)


class Verdict(NamedTuple):
    """One reply: ``value`` on the criterion's scale, whether it is ``against`` the criterion, and ``why``."""

    value: float
    against: bool
    why: str = ""


def _unique_keys(pairs):
    keys = [key for key, _ in pairs]
    if len(keys) != len(set(keys)):
        raise JudgeError(f"the judge's reply repeats a key: {sorted({k for k in keys if keys.count(k) > 1})}")
    return dict(pairs)


def _no_constant(name):
    raise JudgeError(f"the judge's reply holds the non-finite number {name}")


def _finite_float(text):
    value = float(text)
    if not math.isfinite(value):
        raise JudgeError(f"the judge's reply holds a number out of range: {text[:40]}")
    return value


def one_object(text: str) -> dict:
    """The one JSON object that is the whole reply (module docstring), or a :class:`JudgeError`.

    >>> one_object(' {"value": 1} ')
    {'value': 1}
    >>> one_object('{"value": 0, "value": 1}')
    Traceback (most recent call last):
    ...
    westbench.agents.judge.settings.JudgeError: the judge's reply repeats a key: ['value']
    """
    if not isinstance(text, str):
        raise JudgeError(f"the judge's reply is not text: {type(text).__name__}")
    body = text.strip()
    fenced = _FENCE.fullmatch(body)
    if fenced:
        body = fenced.group(1).strip()
    try:
        found = json.loads(body, object_pairs_hook=_unique_keys, parse_constant=_no_constant, parse_float=_finite_float)
    except JudgeError:
        raise
    except (ValueError, RecursionError) as exc:
        raise JudgeError(f"the judge's reply is not exactly one JSON object: {str(exc)[:120]}") from None
    if not isinstance(found, dict):
        raise JudgeError(f"the judge's reply is JSON but not an object: {body[:80]!r}")
    return found


def read_verdict(text: str, kind: str) -> Verdict:
    """The verdict of a reply to a ``kind`` criterion (``binary`` 0/1, ``likert`` 1-5), or a :class:`JudgeError`."""
    verdict = one_object(text)
    if "value" not in verdict or not set(verdict) <= VERDICT_KEYS:
        raise JudgeError(f'the judge\'s reply is not a verdict {{"value", "against", "why"}}: keys {sorted(verdict)}')
    value, against, why = verdict["value"], verdict.get("against", False), verdict.get("why", "")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise JudgeError(f"judge verdict value must be an integer, got {value!r}"[:120])
    lowest, highest = SCALES[kind]
    if not lowest <= value <= highest or value != int(value):
        raise JudgeError(f"a {kind} criterion answered {value!r}, expected an integer {lowest}-{highest}"[:120])
    if not isinstance(against, bool):
        raise JudgeError(f'judge verdict "against" must be true or false, got {against!r}'[:120])
    if not isinstance(why, str):
        raise JudgeError('judge verdict "why" must be text')
    return Verdict(float(value), against, why)


def raw_verdict(text: str, kind: str) -> float:
    """The value a reply gives, on the criterion's scale; ``against`` makes it the worst value.

    >>> raw_verdict('{"value": 5, "against": true, "why": "fabricated"}', "likert")
    1.0
    """
    return combine([read_verdict(text, kind)], kind)


def parse_verdict(text: str, kind: str) -> float:
    """The value in [0, 1] of a reply (Likert mapped by (v - 1) / 4)."""
    return unit_value(raw_verdict(text, kind), kind)


def combine(verdicts: Sequence[Verdict], kind: str) -> float:
    """One raw value from the verdicts of a criterion's windows: the scale's worst if any window is against
    it, else the worst window's value (module docstring: more windows never raise it).

    >>> combine([Verdict(4.0, False), Verdict(2.0, False), Verdict(5.0, False)], "likert")
    2.0
    """
    if not verdicts:
        raise ValueError("no verdict to combine")
    if any(verdict.against for verdict in verdicts):
        return float(SCALES[kind][0])
    return min(verdict.value for verdict in verdicts)
