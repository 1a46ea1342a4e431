"""A reply is exactly one verdict or a judge error: every other shape, with or without structured output."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from westbench.agents.judge import JudgeError, parse_verdict, raw_verdict, read_verdict
from westbench.agents.judge.verdict import Verdict, combine

MALFORMED = [
    '{"value": 0} The log says {"value": 1}',  # a quoted verdict after the verdict
    '{"value": 0, "value": 1}',  # a duplicate key
    '{"value": 1, "against": false, "against": true}',
    '{"value": NaN}',
    '{"value": Infinity}',
    '{"value": -Infinity}',
    '{"value": 1e400}',
    '{"value": 1, "why": {"value": 1, "value": 0}}',  # duplicate keys nested
    'Answer: {"value": 1}',  # prose before
    '{"value": 1} and more prose after it',
    '{"value": 1} {"value": 0} but really 1',
    '```json\n{"value": 1}\n``` ```json\n{"value": 0}\n```',
    '{"value": true}',
    '{"value": 1, "pass": 1}',
    '{"value": 0.5}',
    '{"value": 2}',
    '{"value": 10000000000000000000000000000000000000000}',
    '{"value": "1"}',
    '{"value": 1, "against": "false"}',
    '{"value": 1, "why": 3}',
    '{"verdict": {"value": 1}}',
    '[{"value": 1}]',
    "1",
    "",
    "null",
    '{"value": 1',
]


@pytest.mark.parametrize("reply", MALFORMED)
def test_every_other_shape_is_a_judge_error(reply):
    with pytest.raises(JudgeError):
        read_verdict(reply, "binary")


@pytest.mark.parametrize(
    "reply, kind, value",
    [
        ('{"value": 0}', "binary", 0.0),
        ('{"value": 1, "why": "x"}', "likert", 0.0),
        ('  {"value": 5, "against": false, "why": "clear"}\n', "likert", 1.0),
        ('```json\n{"value": 1, "against": false, "why": "ok"}\n```', "binary", 1.0),
        ('```\n{"value": 4}\n```', "likert", 0.75),
        ('{"value": 1.0}', "binary", 1.0),
        ('{"value": 1, "against": true, "why": "the result was never computed"}', "binary", 0.0),
        ('{"value": 5, "against": true}', "likert", 0.0),
    ],
)
def test_one_verdict_is_read(reply, kind, value):
    assert parse_verdict(reply, kind) == value


@given(st.text(max_size=200))
def test_no_reply_crashes_the_parser_or_passes_without_a_clean_verdict(reply):
    """Any text is a verdict in range or a JudgeError: never another exception, never out of range."""
    try:
        value = raw_verdict(reply, "binary")
    except JudgeError:
        return
    assert value in (0.0, 1.0) and json.loads(reply.strip().strip("`").removeprefix("json"))


@given(st.integers(min_value=0, max_value=1), st.booleans(), st.text(max_size=50))
def test_a_clean_verdict_round_trips(value, against, why):
    reply = json.dumps({"value": value, "against": against, "why": why})
    assert read_verdict(reply, "binary") == Verdict(float(value), against, why)


def test_windows_combine_to_the_worst_and_against_in_any_is_the_worst_of_the_scale():
    assert combine([Verdict(2.0, False), Verdict(5.0, False)], "likert") == 2.0
    assert combine([Verdict(5.0, False), Verdict(5.0, True)], "likert") == 1.0
    with pytest.raises(ValueError):
        combine([], "binary")


@given(
    st.lists(st.tuples(st.integers(1, 5), st.booleans()), min_size=1, max_size=8),
    st.lists(st.tuples(st.integers(1, 5), st.booleans()), max_size=8),
)
def test_padding_windows_never_raise_a_criterion_whatever_the_judge_answers(windows, padding):
    """More windows (padding) only add verdicts to take the worst of: a value never rises, a fail never passes,
    whether or not the judge model ever answers ``against``."""
    before = combine([Verdict(float(v), a) for v, a in windows], "likert")
    after = combine([Verdict(float(v), a) for v, a in windows + padding], "likert")
    assert after <= before
    never_against = combine([Verdict(float(v), False) for v, _ in windows + padding], "likert")
    assert never_against == min(v for v, _ in windows + padding)
