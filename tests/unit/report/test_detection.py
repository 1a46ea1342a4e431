"""What the run could detect, from controls.json as RULES.md fixes it: the bottom line's sentence and the section."""

from hypothesis import given
from hypothesis import strategies as st

from westbench.report.detection import (
    detection_html,
    detection_sentence,
    failure_table,
    missed_gross,
    resolution_table,
)

from .evidence_data import FAILURES, controls_record

ANSWER = {True: "yes", False: "no", None: "cannot tell"}


@given(detected=st.fixed_dictionaries({f: st.sampled_from([True, False, None]) for f in FAILURES}))
def test_the_sentence_gives_each_gross_failure_s_answer_and_the_tic0_resolution(detected):
    controls = controls_record(detected, smallest={("w1", "tic0"): 0.4})
    sentence = detection_sentence(controls)
    assert sentence.startswith("With this ground truth, a known-bad engine would be caught:")
    for family in ("collapse", "mirror", "scale"):  # named, each with its answer
        assert f"{FAILURES[family][0]}: {ANSWER[detected[family]]}" in sentence
    assert f"{FAILURES['shift'][0]}: {ANSWER[detected['shift']]}" in sentence  # one more: named too
    resolved = detected["collapse"] or detected["scale"] or detected["shift"]
    assert ("The smallest W1 separable on TIC 0: 0.4." in sentence) == bool(resolved)
    missed = missed_gross(controls)
    assert len(missed) == sum(detected[f] is not True for f in ("collapse", "mirror", "scale"))
    if None in detected.values():
        assert "Cannot tell: an interval needs at least 3 independent units on each side" in sentence


@given(
    detected=st.fixed_dictionaries({f: st.sampled_from([True, False, None]) for f in FAILURES}),
    by_sanity=st.fixed_dictionaries({f: st.sampled_from(["yes", "no", "in 2 of 3 splits"]) for f in FAILURES}),
)
def test_a_failure_the_sanity_checks_catch_is_caught_whatever_the_scores_say(detected, by_sanity):
    """The sanity checks judge each engine alone: a mirrored or x10 engine they fail in every split of the ground
    truth is caught, and the sentence says by what; one they fail in some splits only is named with the count and not
    promised; the scores' own yes stays a yes."""
    controls = controls_record(detected, smallest={("w1", "tic0"): 0.4})
    controls["caught_by_sanity"] = {FAILURES[f][0]: by_sanity[f] for f in FAILURES}
    sentence = detection_sentence(controls)
    for family in ("collapse", "mirror", "scale"):
        answer = ANSWER[detected[family]]
        if by_sanity[family] != "no" and answer != "yes":
            answer = "yes" if by_sanity[family] == "yes" else by_sanity[family]
            answer += " (by the sanity checks)"
        assert f"{FAILURES[family][0]}: {answer}" in sentence
    caught = [f for f in ("collapse", "mirror", "scale") if detected[f] is True or by_sanity[f] == "yes"]
    assert len(missed_gross(controls)) == 3 - len(caught)


def test_a_run_without_controls_says_what_it_could_detect_is_not_known():
    assert "what it could detect is not known" in detection_sentence(None)
    assert missed_gross(None) == []
    assert "what it could detect is not known" in str(detection_html({"p": None}))


def test_the_section_lists_every_control_and_the_resolution_per_distribution():
    controls = controls_record({"collapse": True, "mirror": False})
    table = failure_table(controls)
    assert list(table["control"]) == ["null_half", "collapse", "mirror"]
    assert list(table["as expected"]) == ["yes", "yes", "no"]  # the null within noise; collapse caught; mirror not
    assert table.loc[1, "separated on"].startswith("W1 TIC 0")
    resolution = resolution_table(controls).set_index("distribution")
    assert resolution.loc["dihedrals", "W1 resolved"] == "yes" and resolution.loc["TIC 0", "W1 smallest separated"]
    html = str(detection_html({"p": controls}))
    assert '<h2 id="detection">What this run could detect</h2>' in html and "<h3>p</h3>" in html
    assert "Reference of the controls: a seeded random half" in html and "Defined (" in html
