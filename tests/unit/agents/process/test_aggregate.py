"""Aggregation: items to capabilities, coverage and process; trials to an agent's profile (properties)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.agents.process import CAPABILITIES, agent_profile, item_score, trial_scores

raw = st.one_of(st.none(), st.sampled_from([0.0, 1.0, 2.0]))


@settings(max_examples=150, deadline=None)
@given(st.lists(raw, min_size=1, max_size=5), st.sampled_from(["majority", "mean"]))
def test_an_item_score_is_in_the_unit_interval_and_a_judge_error_never_raises_it(values, rule):
    score = item_score(values, rule)
    assert 0.0 <= score <= 1.0
    if rule == "majority":
        assert score in (0.0, 0.5, 1.0)  # on an anchor
    worse = [None if v is None else v for v in values[:-1]] + [None]
    assert item_score(worse, rule) <= score + 1e-12


def test_majority_is_the_median_for_three_repeats():
    assert [item_score(v, "majority") for v in ([0, 1, 2], [2, 2, 0], [1, None, 1], [2, None, None])] == [
        0.5,
        1.0,
        0.5,
        0.0,
    ]


cases = st.fixed_dictionaries(
    {
        "covered": st.lists(st.sampled_from(CAPABILITIES), min_size=1, max_size=6, unique=True),
        "scores": st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=12, max_size=12),
    }
)


@settings(max_examples=150, deadline=None)
@given(cases)
def test_an_uncovered_capability_is_excluded_never_scored_zero(case):
    covered, scores = case["covered"], case["scores"]
    capability_of = {f"i{k}": CAPABILITIES[k % 6] for k in range(12)}
    items = {f"i{k}": scores[k] for k in range(12)}
    result = trial_scores(items, capability_of, covered)
    assert result["coverage"] == pytest.approx(len(covered) / 6, abs=1e-6)
    for key in CAPABILITIES:
        assert (result["capabilities"][key] is None) == (key not in covered)
    means = [np.mean([scores[k] for k in range(12) if CAPABILITIES[k % 6] == key]) for key in covered]
    assert result["process"] == pytest.approx(np.mean(means), abs=1e-6)
    # the uncovered capabilities' items may score anything: the process does not move
    worst = {i: (0.0 if capability_of[i] not in covered else s) for i, s in items.items()}
    assert trial_scores(worst, capability_of, covered)["process"] == result["process"]


def test_a_covered_capability_not_judged_leaves_the_process_undefined():
    result = trial_scores({"a": None, "b": 1.0}, {"a": "repair", "b": "coherence"}, ("coherence", "repair"))
    assert result["capabilities"]["repair"] is None and result["process"] is None


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 6), st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0])), min_size=2, max_size=12))
def test_the_coverage_adjusted_process_is_the_mean_over_cells(trials):
    rows = []
    for covered, process in trials:
        rows.append(
            {"coverage": covered / 6, "process": process}
            | {key: (process if k < covered else None) for k, key in enumerate(CAPABILITIES)}
        )
    profile = agent_profile(pd.DataFrame(rows), seed=3, resamples=100).set_index("measure")
    cells = [process for covered, process in trials for _ in range(covered)]
    adjusted = profile.loc["process_coverage_adjusted"]
    assert adjusted["estimate"] == pytest.approx(np.mean(cells), abs=1e-6) and adjusted["cells"] == len(cells)
    assert profile.loc["process", "estimate"] == pytest.approx(np.mean([p for _, p in trials]), abs=1e-6)
    for key in ("process", "process_coverage_adjusted"):
        row = profile.loc[key]
        assert np.isnan(row["lo"]) or row["lo"] - 1e-9 <= row["estimate"] <= row["hi"] + 1e-9
    first = profile.loc[CAPABILITIES[0]]
    assert first["trials"] == len(trials)  # every trial covers the first capability here


def test_the_profile_is_seeded():
    frame = pd.DataFrame(
        {"coverage": [0.5, 1.0, 0.5, 1 / 6], "process": [0.2, 0.9, 0.4, 1.0]}
        | {key: [0.2, 0.9, 0.4, 1.0] for key in CAPABILITIES}
    )
    assert agent_profile(frame, seed=5, resamples=200).equals(agent_profile(frame, seed=5, resamples=200))
    assert not agent_profile(frame, seed=5, resamples=200).equals(agent_profile(frame, seed=6, resamples=200))
