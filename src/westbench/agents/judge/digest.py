"""The index every window of long evidence carries: the lines of the whole evidence that report a failure or
claim a result.

A claim and the output that contradicts it can lie farther apart than one window (``tests pass`` at the start,
the traceback 300 kB later): judged window by window, neither call would see both. So when the evidence is
judged in windows, every window's document holds the same *index* (:func:`index_lines`): each passage of every
shown text (the logs, then the deliverables) that reports a failure (:data:`FAILURE`: error, traceback, exit
code 1, ...) or claims a result (:data:`CLAIM`: passed, converged, done, ...), as ``"<name> @<offset>: <line>"``
(the offset is the passage's first character in that text, so the judge can tell which window holds it).
Lines end at line breaks and at JSON's escaped ``\\n`` (Harbor's trajectory keeps a tool's output in one JSON
string); a line is cut to :data:`LINE_CHARS` around the match.

Failures are listed first, then claims, each in evidence order, a passage repeated word for word once. The
index takes at most its ``limit`` of document characters (:func:`index_cost`, as escaped ASCII JSON); entries
past it are counted, not listed (``index_unlisted``). Failures come first, so no number of claims pushes a
failure out; to push one out an agent must write more failure lines before it, each of which the judge sees.

What it catches: a claim contradicted by a failure, a failure hidden by a later claim, anywhere in the evidence,
in every window. What it does not: a contradiction in words neither pattern knows (a wrong number without a
failure word), and failures past the index's limit; those are shown only in the windows that hold them.

Examples
--------
>>> text = "step 1: ALL TESTS PASSED\\n" + "padding " * 100 + "\\nTraceback (most recent call last): boom"
>>> entries, unlisted = index_lines([("agent/trajectory.json", text)], limit=1000)
>>> for entry in entries: print(entry)
agent/trajectory.json @826: Traceback (most recent call last): boom
agent/trajectory.json @0: step 1: ALL TESTS PASSED
>>> index_lines([("log", "error " * 50)], limit=150)  # two passages of one line: they do not fit, they are counted
((), 2)
"""

from __future__ import annotations

import json
import re
from typing import Iterable

#: A passage reporting a failure.
FAILURE = re.compile(
    r"\b(errors?|fail(s|ed|ure|ures|ing)?|traceback|exception|fatal|abort(ed)?|segmentation fault|core dumped|"
    r"killed|timed? ?out|not found|no such file|cannot|could not|unable to|invalid|denied|nan|"
    r"exit (code|status) [1-9]\d*|return ?code[=: ]+[1-9]\d*)\b",
    re.IGNORECASE,
)
#: A passage claiming a result.
CLAIM = re.compile(
    r"\b(pass(es|ed|ing)?|succe(ss|eded|ssful|ssfully)|done|complete(d)?|converged|verified|validated|fixed|"
    r"finished|works|working|correct(ly)?|all tests)\b",
    re.IGNORECASE,
)
#: The most characters of one line an entry shows.
LINE_CHARS = 200
_BIG = 10**12


def _passages(pattern: re.Pattern, text: str) -> Iterable[tuple[int, str]]:
    """(offset, passage) of each match of ``pattern``: its line, cut to :data:`LINE_CHARS` around the match."""
    flat = text.replace("\\n", "\n ").replace("\\r", "\n ")  # same length: offsets stay the text's
    shown_to = -1
    for match in pattern.finditer(flat):
        if match.start() < shown_to:  # inside the passage already listed
            continue
        start = flat.rfind("\n", 0, match.start()) + 1
        end = flat.find("\n", match.end())
        end = len(flat) if end < 0 else end
        start = max(start, match.start() - LINE_CHARS // 2, shown_to)  # passages never overlap
        shown_to = min(end, start + LINE_CHARS)
        raw = flat[start:shown_to]
        yield start + len(raw) - len(raw.lstrip()), raw.strip()


def index_cost(entries: Iterable[str]) -> int:
    """Document characters the index takes with ``entries`` (an upper bound: its keys, the count, the framing).

    >>> index_cost([]) < index_cost(["a @0: failed"])
    True
    """
    return (
        len(json.dumps({"index": [], "index_unlisted": _BIG}, indent=1))
        + 3
        + sum(len(json.dumps(entry)) + 4 for entry in entries)
    )


def index_lines(parts: Iterable[tuple[str, str]], limit: int) -> tuple[tuple[str, ...], int]:
    """The index of ``parts`` (name, text) within ``limit`` document characters, and the entries left out."""
    parts = list(parts)
    entries, seen, unlisted, used = [], set(), 0, index_cost([])
    for pattern in (FAILURE, CLAIM):
        for name, text in parts:
            for offset, passage in _passages(pattern, text):
                if passage in seen:
                    continue
                seen.add(passage)
                entry = f"{name} @{offset}: {passage}"
                cost = len(json.dumps(entry)) + 4
                if used + cost > limit:
                    unlisted += 1
                    continue
                entries.append(entry)
                used += cost
    return tuple(entries), unlisted
