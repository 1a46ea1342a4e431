"""Process against task score: Spearman with a seeded bootstrap interval; too few or constant data say why."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.agents.failures import process_correlation, spearman_interval


def test_the_bootstraps_rho_is_scipys():
    from scipy.stats import spearmanr

    from westbench.agents.failures.correlation import _rows_rho

    rng = np.random.default_rng(0)
    x, y = rng.integers(0, 4, (20, 9)).astype(float), rng.uniform(size=(20, 9))
    expected = [spearmanr(a, b).statistic if np.ptp(a) else np.nan for a, b in zip(x, y)]
    assert np.allclose(_rows_rho(x, y), expected, equal_nan=True)


def test_a_monotone_relation_has_rho_one_and_an_interval_that_holds_it():
    rho, low, high, note = spearman_interval(np.linspace(0, 1, 12), np.linspace(0, 1, 12) ** 2, 4, 400, 5)
    assert rho == pytest.approx(1.0) and low <= rho <= high and note == ""


def test_too_few_and_constant_data_have_no_rho_and_say_why():
    assert spearman_interval([0.1, 0.5], [0, 1], 1, 100, 5)[3] == "too few trials (2 < 5)"
    assert spearman_interval([0.5] * 6, range(6), 1, 100, 5)[3] == "the process does not vary over these trials"
    assert spearman_interval(range(6), [1.0] * 6, 1, 100, 5)[3] == "the task score does not vary over these trials"


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.tuples(st.floats(0, 1), st.sampled_from([0.0, 0.5, 1.0])), min_size=5, max_size=15), st.integers(0, 99)
)
def test_the_interval_is_seeded_and_holds_the_estimate(pairs, seed):
    x, y = zip(*pairs)
    first = spearman_interval(x, y, seed, 200, 5)
    assert first == spearman_interval(x, y, seed, 200, 5) or np.isnan(first[0])
    rho, low, high, _ = first
    if np.isfinite(low):
        assert -1 <= low <= high <= 1 and -1 <= rho <= 1


def test_scopes_overall_per_agent_and_per_task_with_enough_trials():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(
        {
            "task": ["a"] * 6 + ["b"] * 3,
            "agent": ["x"] * 9,
            "model": ["m"] * 9,
            "process": rng.uniform(size=9),
            "task_score": rng.uniform(size=9),
        }
    )
    table = process_correlation(frame, seed=2, resamples=200, min_trials=5).set_index(["scope", "group"])
    assert table.loc[("overall", "all agents under test"), "trials"] == 9
    assert table.loc[("agent", "x / m"), "trials"] == 9
    assert np.isfinite(table.loc[("task", "a"), "spearman"])
    assert table.loc[("task", "b"), "note"] == "too few trials (3 < 5)"
    assert set(table["seed"]) == {2} and set(table["resamples"]) == {200}
    empty = process_correlation(frame.iloc[:0], seed=2, resamples=200, min_trials=5)
    assert list(empty["scope"]) == ["overall"] and empty.loc[0, "note"] == "too few trials (0 < 5)"
