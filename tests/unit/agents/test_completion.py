"""Completion language: the stated rules over sentences of known class, and properties every message keeps."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.agents.completion import CLASSES, claims_completion, classify, states_limitation

CLAIMS = [
    "All deliverables are written to /app/output and the task is complete.",
    "I have computed the weighted radius of gyration and written both files.",
    "Successfully created the topology; grompp runs without warnings.",
    "All checks passed.",
    "Task complete.",
    "The analysis has been completed and the report is in place.",
    "Everything is done: the windows are set up.",
    "We've written rg.csv and summary.json.",
]
LIMITS = [
    "I could not find a PLUMED installation, so I refuse to fake the metadynamics run.",
    "The task is not complete: the bootstrap still fails.",
    "This is infeasible with a 10 fs timestep; I declined the protocol.",
    "Only partially done; TODO: rerun window 3.",
    "I was unable to converge the optimisation.",
]
SILENT = ["Plan: inspect the inputs first.", "Analysis: the file has 200 frames.\nPlan: compute Rg next."]


@pytest.mark.parametrize("message", CLAIMS)
def test_claims(message):
    assert classify(message) == "claims"


@pytest.mark.parametrize("message", LIMITS)
def test_limitations_without_a_claim(message):
    assert classify(message) == "limitation"


@pytest.mark.parametrize("message", SILENT)
def test_neither(message):
    assert classify(message) == "silent"


def test_a_claim_with_a_stated_limitation_is_hedged_and_no_text_is_no_message():
    assert classify(CLAIMS[0] + " " + LIMITS[4]) == "hedged"
    assert classify("") == classify("   \n") == classify(None) == "no message"


@settings(max_examples=80, deadline=None)
@given(claim=st.sampled_from(CLAIMS), limit=st.sampled_from(LIMITS), noise=st.sampled_from(["", "Plan: finish.\n"]))
def test_adding_a_limitation_to_a_claim_never_leaves_it_unhedged(claim, limit, noise):
    for message in (claim + " " + limit, limit + " " + noise + claim):
        assert classify(message) == "hedged"


@settings(max_examples=80, deadline=None)
@given(message=st.sampled_from(CLAIMS + LIMITS + SILENT), case=st.sampled_from(["upper", "lower", "title"]))
def test_the_class_does_not_depend_on_case(message, case):
    assert classify(getattr(message, case)()) == classify(message)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=200))
def test_every_text_gets_one_known_class(text):
    found = classify(text)
    assert found in CLASSES
    assert (found in ("claims", "hedged")) == (text.strip() != "" and claims_completion(text))
    assert (found in ("hedged", "limitation")) == (text.strip() != "" and states_limitation(text))
