"""The shape of metrics.json, declared once (westbench.metrics.record), and the suite that fills it."""

import numpy as np
import pytest

from westbench.metrics.record import (
    RECORD_FIELDS,
    SCALAR_METRICS,
    WEIGHTING_FIELDS,
    empty_record,
    empty_weighting,
    finite_or_null,
    make_record,
    make_weighting,
    not_estimable_rows,
)
from westbench.metrics.suite import MetricSuite

REQUIRED = [f.name for f in WEIGHTING_FIELDS if not f.optional]


@pytest.fixture(scope="module")
def frames():
    rng = np.random.default_rng(5)
    ca = np.cumsum(rng.normal(0, 0.22, size=(240, 8, 3)), axis=1).astype(np.float32)
    return {
        "ca": ca,
        "tics": rng.normal(size=(240, 4)).astype(np.float32),
        "weight": np.full(240, 1 / 240),
        "traj": np.repeat(np.arange(24), 10),
    }


def test_a_record_has_every_declared_field_and_refuses_an_undeclared_one():
    record = make_record(protein="p", engine="e")
    assert list(record) == [f.name for f in RECORD_FIELDS if not f.optional]
    assert record["frames"] == 0 and record["metrics"] == {} and record["groundtruth_frames"] is None
    assert "training" in make_record(training={"learned": True}) and "training" not in make_record(training=None)
    with pytest.raises(KeyError, match="RECORD_FIELDS"):
        make_record(scores={})
    with pytest.raises(KeyError, match="WEIGHTING_FIELDS"):
        make_weighting(weighting="we", w2={})


def test_empty_values_are_fresh_objects_not_shared_between_records():
    first, second = make_record(), make_record()
    first["not_estimable"]["x"] = "y"
    first["simulated_ps"]["longest"] = 5.0
    assert second["not_estimable"] == {} and second["simulated_ps"]["longest"] == 0.0


def test_a_weighting_that_could_not_be_had_names_every_statistic_and_scalar_with_the_reason():
    keys = [("w1", "tic0"), ("kl", "tic0"), ("w1", "rg")]
    scores = empty_weighting("msm", keys, "one state")
    assert list(scores) == REQUIRED
    assert scores["w1"] == {"tic0": None, "rg": None} and scores["kl"] == {"tic0": None}
    assert set(scores["verdicts"]["w1"].values()) == {"undetermined"}
    assert scores["verdict_notes"]["w1"]["rg"] == "one state"
    assert all(scores[m.name] is None for m in SCALAR_METRICS)
    rows = not_estimable_rows("msm", keys, "one state")
    assert [(r["distribution"], r["metric"]) for r in rows] == [(n, m) for m, n in keys] + [
        (m.distribution, m.metric) for m in SCALAR_METRICS
    ]
    assert {r["note"] for r in rows} == {"one state"} and {r["value"] for r in rows} == {None}


def test_the_record_of_nothing_to_score_has_every_weighting_in_the_same_shape():
    record = empty_record(["we", "msm"], "no frame", protein="p", engine="e")
    assert record["not_estimable"] == {"frames": "no frame"}
    assert {w: list(v) for w, v in record["metrics"].items()} == {"we": REQUIRED, "msm": REQUIRED}


def test_the_suite_fills_exactly_the_declared_fields_scored_or_not(frames):
    suite = MetricSuite(frames, frames, {"bootstrap": 20, "floor_splits": 8})
    scored, table = suite.score("counts")
    assert set(REQUIRED) <= set(scored) <= {f.name for f in WEIGHTING_FIELDS}
    scalars = table.set_index(["distribution", "metric"])["value"]
    for m in SCALAR_METRICS:  # each single-number metric's row carries the value of its key
        assert scalars[(m.distribution, m.metric)] == pytest.approx(scored[m.name])
    # A weighting that cannot be had: the same fields, the same rows, every value missing with the reason.
    broken = MetricSuite(frames, {**frames, "weight": np.zeros(len(frames["weight"]))}, {"bootstrap": 20})
    values, rows = broken.score("we")
    assert set(values) == set(REQUIRED) and values["weighting"] == "we"
    assert set(map(tuple, rows[["distribution", "metric"]].values)) >= {
        (m.distribution, m.metric) for m in SCALAR_METRICS
    }
    assert rows["value"].isna().all() and rows["note"].str.len().gt(0).all()


def test_every_single_number_metric_says_which_way_it_improves_and_the_contract_reads_it():
    from westbench.metrics import contract

    assert all(m.direction in ("lower", "higher") for m in SCALAR_METRICS)
    assert {f"metrics/*/{m.name}" for m in SCALAR_METRICS} <= set(contract.LOWER) | set(contract.HIGHER)
    assert contract.direction("metrics/msm/coverage") == "higher" and contract.direction("metrics/we/w1/rg") == "lower"
    assert contract.direction("metrics/we/intervals/w1/rg/low") == "descriptive"


def test_written_numbers_are_finite_or_null():
    """metrics.json and controls.json never hold NaN or infinity: each is null, everything else as it was."""
    value = {"a": (1.0, np.float64("nan")), "b": [{"c": float("-inf")}, 2, "x", None, True], "d": np.float64(0.5)}
    assert finite_or_null(value) == {"a": [1.0, None], "b": [{"c": None}, 2, "x", None, True], "d": 0.5}
