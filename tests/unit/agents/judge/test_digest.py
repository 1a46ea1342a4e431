"""The index of claims and failures every window carries: within its budget, failures first, the whole evidence."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.agents.judge import gather
from westbench.agents.judge.digest import LINE_CHARS, index_cost, index_lines

WORDS = ["error", "FAILED", "Traceback", "exit code 2", "passed", "converged", "done", "\u2603", "\n", '"', "\\n", "x"]


def test_claims_never_push_a_failure_out_of_the_index():
    claims = "\n".join(f"claim {i}: all tests passed" for i in range(500))
    entries, unlisted = index_lines([("log", claims + "\nTraceback: the energy is NaN")], limit=400)
    assert "Traceback" in entries[0] and unlisted > 0 and index_cost(entries) <= 400


def test_escaped_line_breaks_split_lines_and_offsets_point_into_the_text():
    text = '{"content": "ran pytest\\n12 passed\\nFAILED test_x"}'
    entries, _ = index_lines([("agent/trajectory.json", text)], limit=1000)
    assert [entry.split(": ", 1)[1] for entry in entries] == ['FAILED test_x"}', "12 passed"]
    for entry in entries:  # each offset is where its passage starts in the text
        offset, passage = entry.removeprefix("agent/trajectory.json @").split(": ", 1)
        assert text[int(offset) :].startswith(passage)


def test_a_long_line_is_cut_around_each_match_and_a_repeated_passage_is_listed_once():
    entries, _ = index_lines(
        [("a", "p" * 5000 + " error here " + "q" * 5000), ("b", "p" * 5000 + " error here ")], 10_000
    )
    assert len(entries) == 2 and all(len(entry.split(": ", 1)[1]) <= LINE_CHARS for entry in entries)
    entries, _ = index_lines([("a", "same error\n" * 50)], 10_000)
    assert entries == ("a @0: same error",)


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.text(min_size=1, max_size=30),
        st.lists(st.sampled_from(WORDS), max_size=400).map(" ".join),
        min_size=1,
        max_size=4,
    ),
    st.integers(1500, 6000),
)
def test_no_window_with_its_index_exceeds_max_chars(logs, max_chars):
    """Every window carries the same index, and still no document exceeds ``max_chars``."""
    evidence = gather("do it", logs, {}, max_chars, max_windows=60)
    if evidence.incomplete:
        return
    for index in range(len(evidence.windows)):
        document = evidence.document(index)
        assert len(document) + len("do it") <= max_chars
        if len(evidence.windows) > 1:
            assert json.loads(document)["index"] == list(evidence.index)
    assert index_cost(evidence.index) <= max_chars // 8 or not evidence.index
