"""The windows rule: every character reaches the judge, every short passage whole in one window, cost bounded."""

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.agents.judge.confined import Unread
from westbench.agents.judge.evidence import OVERLAP_FRACTION, escaped_costs, gather, window_ranges


@given(st.integers(0, 20_000), st.integers(8, 3_000))
def test_windows_cover_everything_and_hold_every_short_passage_whole(length, width):
    windows = window_ranges(length, width)
    stride = width - width // OVERLAP_FRACTION
    assert len(windows) == (1 if length <= width else 1 + math.ceil((length - width) / stride))
    assert windows[0][0] == 0 and windows[-1][1] == length
    assert all(end - start <= width for start, end in windows)
    assert all(b[0] <= a[1] for a, b in zip(windows, windows[1:]))  # no gap between windows
    passage = min(width // OVERLAP_FRACTION, length)  # any passage this long sits whole in one window
    for start in [*range(0, length - passage + 1, max(1, length // 50)), length - passage]:
        assert any(lo <= start and start + passage <= hi for lo, hi in windows)


@given(st.text(max_size=300))
def test_costs_are_what_the_ascii_json_document_takes(text):
    assert int(escaped_costs(text).sum()) == len(json.dumps(text, ensure_ascii=True)) - 2


@given(st.lists(st.sampled_from([1, 2, 6, 12]), max_size=3000), st.integers(100, 1000))
def test_weighted_windows_stay_within_the_width_and_cover_everything(costs, width):
    windows = window_ranges(costs, width)
    cumulative = [0]
    for cost in costs:
        cumulative.append(cumulative[-1] + cost)
    assert windows[0][0] == 0 and windows[-1][1] == len(costs)
    assert all(cumulative[end] - cumulative[start] <= width for start, end in windows)
    assert all(b[0] <= a[1] for a, b in zip(windows, windows[1:]))  # no gap
    passage = width // OVERLAP_FRACTION - 12  # the rule: any passage costing this much is whole in one window
    for first in range(len(costs)):
        last = first  # the longest passage from `first` within the cost
        while last < len(costs) and cumulative[last + 1] - cumulative[first] <= passage:
            last += 1
        assert any(lo <= first and last <= hi for lo, hi in windows)


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(st.text(min_size=1, max_size=40), st.text(max_size=3000), max_size=6),
    st.dictionaries(st.text(min_size=1, max_size=40), st.sampled_from(["link", "binary", "special"]), max_size=30),
    st.text(max_size=200),
    st.integers(1000, 5000),
)
def test_no_window_document_exceeds_max_chars_whatever_the_agent_wrote_or_named(logs, unread, instruction, max_chars):
    """Text, names and the listing of what is not shown all count: odd characters cost what they take escaped."""
    trajectory = {**logs, **{f"u/{name}": Unread(kind) for name, kind in unread.items()}}
    evidence = gather(instruction, trajectory, {}, max_chars, max_windows=50)
    if evidence.incomplete or max_chars - len(instruction) < max_chars // 2:
        return
    for index in range(len(evidence.windows)):
        assert len(evidence.document(index)) + len(instruction) <= max_chars


def test_non_ascii_text_takes_more_windows():
    ascii_only = gather("", "x" * 3000, {}, max_chars=1000, max_windows=30)
    snowmen = gather("", "\u2603" * 3000, {}, max_chars=1000, max_windows=30)
    assert snowmen.length == 6 * 3000 + ascii_only.length - 3000 and len(snowmen.windows) >= 5 * len(ascii_only.windows)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_a_step_anywhere_in_a_long_trajectory_reaches_one_window_whole(data):
    """The property the judge's padding defence rests on, over texts, positions and window sizes."""
    max_chars = data.draw(st.integers(1000, 4000))
    length = data.draw(st.integers(0, 8 * max_chars))
    step = "FABRICATED: tests passed without running"
    at = data.draw(st.integers(0, length))
    text = "p" * at + step + "p" * (length - at)
    evidence = gather("do it", {"agent/trajectory.json": text}, {"out.txt": "ok"}, max_chars, max_windows=100)
    documents = [json.loads(evidence.document(i)) for i in range(len(evidence.windows))]
    shown = [
        part if isinstance(part, str) else part["text"]
        for document in documents
        for part in document["trajectory"].values()
    ]
    assert any(step in text for text in shown)
    # and the windows' texts, laid end to end at their offsets, rebuild the whole
    rebuilt = [""] * len(text)
    for document in documents:
        part = document["trajectory"].get("agent/trajectory.json")
        if part is None:  # a window of the deliverable only
            continue
        lo, hi = (0, len(text)) if isinstance(part, str) else part["chars"]
        rebuilt[lo:hi] = list(part if isinstance(part, str) else part["text"])
    assert "".join(rebuilt) == text


def test_a_long_trajectory_costs_at_most_max_windows_calls_and_is_otherwise_not_judged():
    windows = len(gather("", "x" * 9_000, {}, max_chars=1000, max_windows=100).windows)
    assert windows > 1 and gather("", "x" * 9_000, {}, max_chars=1000, max_windows=windows).incomplete == ()
    evidence = gather("", "x" * 9_000, {}, max_chars=1000, max_windows=windows - 1)
    assert evidence.incomplete == (f"the evidence needs {windows} windows of the judge, more than its {windows - 1}",)


def test_other_logs_give_way_to_harbors_trajectory_and_without_it_nothing_does():
    logs = {"agent/trajectory.json": "t" * 1000, "agent/debug.json": "d" * 5000, "agent/small.txt": "s"}
    evidence = gather("", logs, {}, max_chars=2000, max_windows=1)
    assert [part.name for part in evidence.parts] == ["agent/trajectory.json", "agent/small.txt"]
    assert "over the judge's evidence budget" in evidence.not_shown["trajectory"]["agent/debug.json"]
    assert evidence.incomplete == ()
    without = gather("", {"agent/debug.json": "d" * 5000}, {}, max_chars=1000, max_windows=1)
    assert without.incomplete and without.parts[0].name == "agent/debug.json"


def test_a_step_record_or_deliverable_too_large_to_read_makes_the_evidence_incomplete():
    too_large = Unread("too-large", 10**9)
    assert gather("", {"agent/trajectory.json": too_large}, {}, 1000, 2).incomplete
    assert gather("", {"agent/trajectory.json": "ok"}, {"out.txt": too_large}, 1000, 2).incomplete
    assert not gather("", {"agent/trajectory.json": "ok", "agent/x.log": too_large}, {}, 1000, 2).incomplete
    assert not gather("", "ok", {"out.bin": Unread("binary", 10**9)}, 1000, 2).incomplete  # described


def test_secrets_are_redacted_from_texts_and_names():
    secret = "sk-live-0123456789"
    evidence = gather("", {f"agent/{secret}.log": f"key={secret}"}, {"out.txt": secret}, 1000, 2, [secret])
    document = evidence.document(0)
    assert secret not in document and document.count("[redacted]") == 3
