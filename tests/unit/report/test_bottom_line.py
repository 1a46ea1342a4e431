"""The bottom line's ranking rule and its limit sentence, as properties over random tables of estimates."""

import math

import pandas as pd
from hypothesis import example, given, settings
from hypothesis import strategies as st

from westbench.report.bottom_line import above, distribution_ranks, overall_ranks, standing_sentence
from westbench.report.claims import summary
from westbench.report.limits import FloorDesign, limitation, runs_for_floor
from westbench.report.overview import overview_html

VERDICTS = st.sampled_from(["separated", "within noise", "undetermined", ""])


@st.composite
def estimates(draw, engines=("a", "b", "c", "d"), distributions=("tic0", "rg")):
    rows = []
    for engine in engines:
        for distribution in distributions:
            low = draw(st.floats(0, 5))
            high = low + draw(st.floats(0, 3))
            value = draw(st.floats(low, high)) if high > low else low
            rows.append(
                {
                    "protein": "p",
                    "engine": engine,
                    "weighting": "we",
                    "metric": "W1",
                    "distribution": distribution,
                    "value": value,
                    "low": low,
                    "high": high,
                    "floor_high": draw(st.floats(0.01, 3)),
                    "verdict": draw(VERDICTS),
                    "note": "",
                }
            )
    return pd.DataFrame(rows)


@settings(max_examples=60, deadline=None)
@given(values=estimates())
def test_a_rank_follows_the_rule_and_never_comes_from_an_undetermined_value(values):
    ranked = distribution_ranks(values)
    for _, group in ranked.groupby("distribution"):
        records = group.to_dict("records")
        for record in records:
            if record["verdict"] not in ("separated", "within noise"):
                assert pd.isna(record["rank"])  # undetermined (or no verdict): never ranked
                continue
            assert record["rank"] == 1 + sum(above(other, record) for other in records)
        for a in records:
            for b in records:
                if above(a, b):  # ranked above: both determined, intervals apart, and a smaller rank
                    assert a["high"] < b["low"] and a["rank"] < b["rank"]
                    assert {a["verdict"], b["verdict"]} <= {"separated", "within noise"}


@settings(max_examples=30, deadline=None)
@given(values=estimates(), order=st.permutations(range(4)))
def test_the_ranks_do_not_depend_on_the_order_of_the_engines(values, order):
    engines = ["a", "b", "c", "d"]
    shuffled = pd.concat([values[values["engine"] == engines[i]] for i in order], ignore_index=True)
    first = overall_ranks(distribution_ranks(values)).set_index("engine")["rank"]
    second = overall_ranks(distribution_ranks(shuffled)).set_index("engine")["rank"]
    assert first.sort_index().equals(second.sort_index())


@settings(max_examples=40, deadline=None)
@given(floor=st.floats(0.01, 10), runs=st.integers(2, 50), target=st.floats(0.001, 10))
@example(floor=1.9, runs=2, target=0.001)  # 2 (1.9 / 0.001)^2 is 7,220,000 in exact arithmetic, a hair under in floats
def test_the_runs_the_limit_sentence_asks_for_bring_the_floor_below_the_target(floor, runs, target):
    needed = runs_for_floor(floor, runs, target)
    assert needed >= runs
    if floor >= target:
        assert floor * math.sqrt(runs / needed) < target  # 1/sqrt(runs): below the target at that count
        assert floor * math.sqrt(runs / (needed - 1)) >= target * (1 - 1e-9)  # and not at one run fewer


def test_intervals_that_all_overlap_tie_and_the_report_says_it_cannot_rank():
    rows = pd.DataFrame(
        {
            "protein": "p",
            "engine": ["a", "b"],
            "weighting": "we",
            "metric": "W1",
            "distribution": "tic0",
            "value": [0.3, 0.5],
            "low": [0.1, 0.2],
            "high": [0.6, 0.9],
            "floor_high": [1.9, 1.9],
            "verdict": "within noise",
            "note": "",
        }
    )
    ranked = distribution_ranks(rows)
    assert standing_sentence(overall_ranks(ranked)).startswith("The data separate no two engines: a and b tie")
    sentence = limitation(ranked, 3).sentence
    assert "noise floor" in sentence and "1.9 with 3 ground-truth runs" in sentence
    assert f"about {runs_for_floor(1.9, 3, 0.1)} runs" in sentence


def test_undetermined_values_are_their_own_colour_and_their_reason_is_the_limit():
    w1 = pd.DataFrame(
        {
            "protein": ["p", "p"],
            "engine": ["a", "b"],
            "weighting": ["we", "we"],
            "tic0": [0.3, None],
            "tic0_ci_low": [0.1, None],
            "tic0_ci_high": [0.5, None],
            "tic0_floor_high": [1.0, None],
            "tic0_verdict": ["undetermined", "undetermined"],
            "tic0_note": ["fewer than 3 units", "no model frame"],
        }
    )
    result = summary(w1, w1.iloc[0:0], ["we"], {"p": 3})["p"]
    assert (
        result["limitation"].kind == "undetermined"
        and "2 of 2 values are undetermined" in result["limitation"].sentence
    )
    html = str(overview_html(w1, w1.iloc[0:0], ["we"], {"p": 3}))
    assert html.count('<td class="heat v-undetermined"') == 2 and "#1" not in html
    assert "not ranked" in html


def test_the_ground_truth_against_itself_is_not_ranked_and_each_engine_once():
    w1 = pd.DataFrame(
        {
            "protein": ["p"] * 3,
            "engine": ["groundtruth", "a", "a"],
            "weighting": ["we", "we", "msm"],
            "tic0": [0.0, 0.3, 5.0],
            "tic0_ci_low": [0.0, 0.1, 4.0],
            "tic0_ci_high": [0.1, 0.5, 6.0],
            "tic0_floor_high": [1.0, 1.0, 1.0],
            "tic0_verdict": ["within noise", "within noise", "separated"],
            "tic0_note": ["", "", ""],
        }
    )
    values = summary(w1, w1.iloc[0:0], ["we", "msm"], {"p": 3})["p"]["values"]
    assert values[["engine", "weighting"]].values.tolist() == [["a", "we"]]


@settings(max_examples=40, deadline=None)
@given(runs=st.integers(2, 40), engine_runs=st.floats(0.2, 60), floor=st.floats(0.05, 5), target=st.floats(0.01, 5))
def test_more_runs_never_raise_the_floor_and_the_runs_asked_for_reach_the_target(runs, engine_runs, floor, target):
    design = FloorDesign(runs=runs, pseudo_runs=1, engine_runs=engine_runs)
    scales = [design.scale(n) for n in range(runs, runs + 50)]
    assert all(b <= a + 1e-12 for a, b in zip(scales, scales[1:]))  # more ground-truth runs: never a higher floor
    needed = design.runs_for(floor, target)
    if needed is not None:
        assert needed >= runs and floor * design.scale(needed) / design.scale(runs) < target
    else:  # no count of runs gets there: the engine's own sample bounds the floor
        assert floor * design.scale(100_000) / design.scale(runs) >= target * (1 - 1e-9)
