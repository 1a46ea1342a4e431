"""What the judge is shown of a trial: every step, in windows when it is long, scrubbed of secrets.

The evidence is the agent's logs (``trajectory``) and the rubric's deliverables (``files``), as texts or
:class:`~westbench.agents.judge.confined.Unread` (listed under ``not_shown`` with the reason, never
pasted). Values of the judge's secrets (its key, the environment's secret-looking variables) are replaced
by ``[redacted]`` in every text and name before anything else.

The windows rule (no hiding by padding): the shown parts, laid end to end (logs, then files), take ``L``
characters of the evidence document, which is ASCII JSON: each text character counts what it takes
escaped (:func:`escaped_costs`: a letter 1, a line break or quote 2, a non-ASCII character 6) and each
part's name counts with its JSON framing (:func:`header_cost`), so ``max_chars`` bounds what a call sends
whatever the agent wrote or named. One call shows ``W`` of them: ``max_chars`` less the instruction and the
listing of what is not shown (at most ``max_chars // 8``; entries past it are counted, not listed), at
least ``max_chars // 4``. If ``L <= W`` there is one window. Otherwise every window also carries the index
of the claims and failures of the whole evidence (:mod:`~westbench.agents.judge.digest`, at most
``max_chars // 8``, less where the instruction leaves no room above ``max_chars // 4``; ``W`` is that much
smaller), so a claim and the output contradicting it are seen together however far apart they lie, and
window ``k`` (from 0) shows the
parts and characters within ``[k * S, k * S + W)`` with stride ``S = W - W // 8``: consecutive windows
overlap by ``W // 8``, so every character is shown in some window and every passage up to
``W // 8 - 12`` is shown whole in one. ``n = 1 + ceil((L - W) / S)`` windows, each judged by its own call,
so a criterion costs ``repeats x n`` calls, at most ``repeats x max_windows``. Nothing is cut.

What cannot be shown whole is never judged partly: when the evidence needs more than ``max_windows``
windows, or a step record or deliverable was not read for its size or number of entries
(``too-large``, ``over-budget``, ``too-many``, ``too-deep``, ``changed``, ``unreadable``), the evidence is
*incomplete* (:attr:`Evidence.incomplete`, neutral reasons) and every criterion is a judge error, not met.
Harbor's trajectory (``agent/trajectory*.json``) records every step; when it is there, the agent's other
logs (prompts and debug copies of the same steps) are shown while the budget allows and otherwise listed
as ``over-budget``, without making the evidence incomplete. Without it every log is a step record.
A step record that is there but cannot be read as a regular UTF-8 file (a link, a hard link, a fifo, socket
or device, a folder, binary, not UTF-8, on another filesystem, unreadable) makes the evidence incomplete,
the reason naming the file and what is wrong: the agent's other logs never stand in for it.

Examples
--------
>>> evidence = gather("", {"agent/trajectory.json": "x" * 2500}, {"out.txt": "ok"}, max_chars=1000,
...                   max_windows=8)
>>> len(evidence.windows), evidence.windows[0], evidence.windows[1], evidence.length
(5, (0, 543), (459, 1135), 2756)
>>> import json
>>> sorted(json.loads(evidence.document(4)))
['files', 'index', 'not_shown', 'trajectory', 'window']
>>> gather("", {"agent/trajectory.json": Unread("link"), "agent/notes.txt": "tests passed"}, {}, 1000, 8).incomplete
("the step record 'agent/trajectory.json' is not a regular UTF-8 file: symbolic link: not followed",)
>>> gather("", "key sk-12345678 seen", {}, 1000, 8, secrets={"sk-12345678"}).document(0)
'{\\n "trajectory": {\\n  "trajectory": "key [redacted] seen"\\n },\\n "files": {}\\n}'
>>> gather("", "y" * 9000, {}, 1000, 8).incomplete
('the evidence needs 16 windows of the judge, more than its 8',)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Iterable, Mapping

import numpy as np

from westbench.agents.judge.collect import is_step_record
from westbench.agents.judge.confined import REASONS, Unread
from westbench.agents.judge.digest import index_cost, index_lines
from westbench.agents.judge.windows import OVERLAP_FRACTION, escaped_costs, window_ranges

#: Unread kinds that may hide a step: evidence with one of them among its step records or deliverables
#: is incomplete (not judged).
HIDING = frozenset({"too-large", "over-budget", "too-many", "too-deep", "changed", "unreadable"})
#: Unread kinds that are the judge's limits, not the file's kind.
LIMITS = frozenset({"too-large", "over-budget", "too-many", "too-deep"})
REDACTED = "[redacted]"


@dataclass(frozen=True)
class Part:
    """One shown text: its ``section`` (``trajectory`` or ``files``), ``name`` and ``text``."""

    section: str
    name: str
    text: str


@dataclass(frozen=True)
class Evidence:
    """The judge's view of a trial (module docstring): shown parts, what is not shown, the windows.

    The evidence is a row of *units*: per part, its name (one unit costing :func:`header_cost`) then its
    characters (:func:`escaped_costs`). ``offsets`` are the parts' first units, ``cumulative`` the
    document characters before each unit, ``windows`` unit ranges.
    """

    parts: tuple[Part, ...]
    not_shown: dict
    windows: tuple[tuple[int, int], ...]
    incomplete: tuple[str, ...]
    offsets: tuple[int, ...] = ()
    cumulative: np.ndarray | None = None  # None when the evidence is too long to be judged
    length: int = 0  # document characters of all shown parts (``L`` of the module docstring)
    listing_limit: int = 0
    index: tuple[str, ...] = ()  # the claims and failures of the whole evidence (digest), in every window
    index_unlisted: int = 0

    def span(self, index: int) -> tuple[int, int]:
        """Window ``index``'s document characters (from, to) of :attr:`length`."""
        start, end = self.windows[index]
        return int(self.cumulative[start]), int(self.cumulative[end])

    def document(self, index: int) -> str:
        """The JSON evidence document of window ``index``: ASCII, every character the agent wrote escaped.

        One window: ``{"trajectory": {name: text}, "files": {name: text}}`` (and ``not_shown`` when some
        file is not shown). Several: each part in the window cut to it, as ``{"chars": [from, to], "of":
        length, "text": ...}``, under ``window`` (its index from 1, the count, its document characters of
        ``length``) and ``index`` (:mod:`~westbench.agents.judge.digest`: the same in every window).
        """
        start, end = self.windows[index]
        sections: dict = {"trajectory": {}, "files": {}}
        for part, first in zip(self.parts, self.offsets):
            if len(self.windows) == 1:
                sections[part.section][part.name] = part.text
                continue
            if max(start, first) >= min(end, first + 1 + len(part.text)):  # the name's unit, then the characters
                continue
            lo = max(start - first - 1, 0)
            hi = max(min(end - first - 1, len(part.text)), lo)
            sections[part.section][part.name] = {"chars": [lo, hi], "of": len(part.text), "text": part.text[lo:hi]}
        if len(self.windows) > 1:
            lo, hi = self.span(index)
            window = {"index": index + 1, "count": len(self.windows), "chars": [lo, hi], "of": self.length}
            digest = {"index": list(self.index)} | (
                {"index_unlisted": self.index_unlisted} if self.index_unlisted else {}
            )
            sections = {"window": window, **digest, **sections}
        listed, more = _listing(self.not_shown, self.listing_limit)
        if len(self.windows) > 1 or more or listed["trajectory"] or listed["files"]:
            sections["not_shown"] = listed
            if more:
                sections["not_shown_unlisted"] = more
        return json.dumps(sections, **_DUMP)


_BIG = 10**12  # wider than any count or offset a document holds
_DUMP = {"indent": 1, "ensure_ascii": True}


def _framing() -> tuple[int, int]:
    """Document characters of one part's framing besides its name (an empty name, widest numbers), and of a
    window document's own framing (window header, sections, the count of unlisted entries)."""
    entry = {"chars": [_BIG, _BIG], "of": _BIG, "text": ""}
    skeleton = {
        "window": {"index": _BIG, "count": _BIG, "chars": [_BIG, _BIG], "of": _BIG},
        "trajectory": {},
        "files": {},
        "not_shown": {"trajectory": {}, "files": {}},
        "not_shown_unlisted": _BIG,
    }
    with_entry = {**skeleton, "trajectory": {"": entry}}
    return len(json.dumps(with_entry, **_DUMP)) - len(json.dumps(skeleton, **_DUMP)) + 2, len(
        json.dumps(skeleton, **_DUMP)
    )


#: Document characters one part's name takes besides the name (its JSON framing in a window), and those of
#: the window header and the document's own framing: both measured on :func:`json.dumps`'s own output.
HEADER_FRAMING, WINDOW_FRAMING = _framing()
#: The listing of what is not shown, and the index of a windowed evidence, each take at most this fraction of
#: ``max_chars`` (1/8).
LISTING_FRACTION = INDEX_FRACTION = 8


def header_cost(name: str) -> int:
    """Document characters a part's name takes with its framing (:data:`HEADER_FRAMING`).

    >>> header_cost("agent/trajectory.json") == len('"agent/trajectory.json"') + HEADER_FRAMING
    True
    """
    return len(json.dumps(name)) + HEADER_FRAMING


def _listing(not_shown: Mapping, limit: int) -> tuple[dict, int]:
    """The not-shown entries listed within ``limit`` document characters, and how many more there are."""
    listed, more, used = {"trajectory": {}, "files": {}}, 0, 0
    for section in ("trajectory", "files"):
        for name, reason in not_shown.get(section, {}).items():
            cost = len(json.dumps(name)) + len(json.dumps(reason)) + 8
            if used + cost > limit:
                more += 1
                continue
            listed[section][name] = reason
            used += cost
    return listed, more


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every occurrence of each secret replaced by ``[redacted]`` (longest first).

    >>> redact("a=sk-123456789 b=sk-1234567", ["sk-1234567", "sk-123456789"])
    'a=[redacted] b=[redacted]'
    """
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return text


def gather(
    instruction: str,
    trajectory: str | Mapping[str, str | Unread],
    files: Mapping[str, str | Unread],
    max_chars: int,
    max_windows: int,
    secrets: Iterable[str] = (),
) -> Evidence:
    """The evidence of one trial for the judge (module docstring): parts, ``not_shown``, windows, incompleteness."""
    secrets = [secret for secret in secrets if secret]
    logs = dict(trajectory) if isinstance(trajectory, Mapping) else {"trajectory": trajectory}
    shown, not_shown, hiding = _sorted_parts(logs, files, secrets)
    listing_limit = max_chars // LISTING_FRACTION
    # room for the listing of what is not shown: what is not read, and every log that may give way
    droppable = {
        "trajectory": {
            name: REASONS["over-budget"] + " (1000000000 bytes)" for _, name, _, role in shown if role == "log"
        },
        "files": {},
    }
    listing = sum(
        len(json.dumps(name)) + len(json.dumps(reason)) + 8
        for entries in (not_shown, droppable)
        for section in entries.values()
        for name, reason in section.items()
    )
    width = max(max_chars - len(instruction) - min(listing, listing_limit) - WINDOW_FRAMING, max_chars // 4)
    cost = {i: header_cost(item[1]) + len(json.dumps(item[2])) - 2 for i, item in enumerate(shown)}
    index_limit = 0
    if sum(cost.values()) > width:  # windows: each holds the index of claims and failures, above max_chars // 4
        room = min(max_chars // INDEX_FRACTION, width - max_chars // 4)
        index_limit = min(room, index_cost(index_lines(((item[1], item[2]) for item in shown), room)[0]))
    width -= index_limit
    budget = width + (max_windows - 1) * (width - width // OVERLAP_FRACTION)
    # Harbor's trajectory is there: the other logs go first, largest first, while the rest is over budget
    for index in sorted((i for i, item in enumerate(shown) if item[3] == "log"), key=lambda i: -cost[i]):
        if sum(cost.values()) <= budget:
            break
        section, name, text, _ = shown[index]
        not_shown[section][name] = Unread("over-budget", len(text.encode("utf-8", "surrogateescape"))).describe()
        shown[index] = None
        del cost[index]
    parts = tuple(Part(section, name, text) for section, name, text, _ in filter(None, shown))
    return _windowed(
        parts, not_shown, hiding, sum(cost.values()), width, budget, max_windows, listing_limit, index_limit
    )


def _sorted_parts(logs: Mapping, files: Mapping, secrets: list[str]) -> tuple[list, dict, list[str]]:
    """The texts to show as (section, name, text, role), what is not shown and why, and why the evidence is
    incomplete: a step record or deliverable not read for its size or number (:data:`HIDING`), and any step
    record (``agent/trajectory*.json``) that is not a regular UTF-8 file, named with what is wrong with it."""
    has_record = any(is_step_record(name) for name in logs)
    roles = {name: "step" if is_step_record(name) or not has_record else "log" for name in logs}
    shown: list = []  # (section, name, text, role)
    not_shown: dict = {"trajectory": {}, "files": {}}
    hiding: list[str] = []
    for section, items in (("trajectory", logs), ("files", dict(files))):
        for name, text in items.items():
            role = roles.get(name, "step") if section == "trajectory" else "file"
            safe_name = redact(name, secrets)
            if not isinstance(text, Unread):
                shown.append((section, safe_name, redact(text, secrets), role))
                continue
            not_shown[section][safe_name] = text.describe()
            if section == "trajectory" and is_step_record(name):  # the record of every step cannot be hidden
                problem = "was not read" if text.kind in LIMITS else "is not a regular UTF-8 file"
                hiding.append(f"the step record {ascii(safe_name)[:160]} {problem}: {text.describe()}")
            elif text.kind in HIDING and role != "log":
                hiding.append(f"a step record or deliverable was not read: {REASONS[text.kind]}")
    return shown, not_shown, hiding


def _windowed(parts, not_shown, hiding, total, width, budget, max_windows, listing_limit, index_limit) -> Evidence:
    """The :class:`Evidence` of the parts to show: units, windows, the index, and why it is incomplete."""
    offsets = tuple(int(x) for x in np.cumsum([0] + [1 + len(part.text) for part in parts])[:-1])
    cumulative, index, unlisted = None, (), 0
    if total <= budget:
        units = np.concatenate(
            [np.zeros(0, dtype=np.int64)]
            + [np.concatenate([[header_cost(part.name)], escaped_costs(part.text)]) for part in parts]
        )
        cumulative = np.concatenate([[0], np.cumsum(units)])
        windows = window_ranges(units, width)
        if len(windows) > 1 and index_limit >= index_cost([]):
            index, unlisted = index_lines(((part.name, part.text) for part in parts), index_limit)
    else:  # too long to be judged: only the number of windows it would take is needed
        windows = window_ranges(total, width)
    incomplete = sorted(set(hiding))
    if len(windows) > max_windows:
        incomplete.insert(0, f"the evidence needs {len(windows)} windows of the judge, more than its {max_windows}")
    return Evidence(
        parts, not_shown, windows, tuple(incomplete), offsets, cumulative, total, listing_limit, index, unlisted
    )
