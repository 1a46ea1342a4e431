"""What the run's records say about how far a value can be read, read defensively from metrics.json and
controls.json as RULES.md fixes them (either may lack a field, or be absent)."""

import math

from hypothesis import given
from hypothesis import strategies as st

from westbench.report.evidence import (
    BIASED,
    PINNED,
    UNRESOLVED,
    EngineEvidence,
    ProteinEvidence,
    exclusion,
    kl_pinned,
    kl_reason,
    largest_reachable_kl,
    read_evidence,
    sanity_from_table,
)

from .evidence_data import controls_record, divergence_rows, metrics_record, write_metrics

TRAINING = {"learned": False, "best_epoch": 27, "relative_drop": 1e-5, "min_relative_drop": 0.05}
SANITY = {
    "passed": False,
    "failed": ["chirality"],
    "checks": {
        "chirality": {"passed": False, "value": -0.6, "threshold": "> -0.25", "message": "closer to the mirror"}
    },
}


def test_read_evidence_gathers_training_sanity_the_tica_and_the_controls(tmp_path):
    records = {
        "cg_a": metrics_record("cg_a", training=TRAINING, tica="TICA fitted on 54 pairs for 45 features"),
        "implicit": metrics_record("implicit", sanity=SANITY),
        "explicit": metrics_record("explicit"),  # a record from before sanity and the TICA's caveat
    }
    controls = tmp_path / "controls.json"
    controls.write_text(__import__("json").dumps(controls_record({"collapse": True})))
    found = read_evidence(write_metrics(tmp_path, records), [("p", controls)])["p"]
    assert found.tica_caveat == "TICA fitted on 54 pairs for 45 features"
    assert found.flags() == {"cg_a": "failed to learn: epoch 27 kept, validation loss 0.001 % below the start's"}
    assert found.failed() == {"implicit": "chirality: closer to the mirror"}
    assert found.resolved("W1", "rg") is True and found.resolved("w1", "nonexistent") is None
    assert found.engine("explicit").failed_checks == [] and found.engine("explicit").flag == ""


def test_a_missing_controls_file_is_no_controls_and_resolves_nothing_either_way(tmp_path):
    found = read_evidence(write_metrics(tmp_path, {"a": metrics_record("a")}), [("p", tmp_path / "absent.json")])
    assert found["p"].controls is None and found["p"].resolved("w1", "tic0") is None


def test_the_tables_sanity_column_names_an_engine_whose_record_lacks_it():
    evidence = {"p": ProteinEvidence("p", {"a": EngineEvidence("a")})}
    table = divergence_rows({"a": {"rg": (0.1, 0.0, 0.2, "undetermined")}, "b": {"rg": (0.1, 0.0, 0.2, "separated")}})
    table["sanity_failed"] = ["units;exploded", ""]
    sanity_from_table(evidence, table)
    assert evidence["p"].engine("a").failed_checks == ["units", "exploded"] and evidence["p"].failed() == {
        "a": "units; exploded"
    }
    sanity_from_table(evidence, table.drop(columns="sanity_failed"))  # a table from before the column: no change


def test_exclusion_reasons_in_their_order():
    evidence = ProteinEvidence(
        "p",
        {"bad": EngineEvidence("bad", sanity=SANITY), "a": EngineEvidence("a", kl_floor=1e-8, groundtruth_frames=60)},
        tica_caveat="few pairs",
        controls=controls_record({"collapse": True}, resolved={("w1", "rg"): False, ("w1", "bonds"): True}),
    )
    row = {"engine": "a", "weighting": "we", "metric": "W1", "distribution": "bonds", "value": 0.1, "note": ""}
    assert exclusion(row, evidence) == ""
    assert exclusion({**row, "engine": "bad"}, evidence).startswith("bad failed its sanity check (chirality)")
    assert exclusion({**row, "distribution": "tic01"}, evidence).startswith("the TICA is not well posed (few pairs)")
    assert exclusion({**row, "distribution": "rg"}, evidence).startswith(UNRESOLVED)
    kl = {**row, "metric": "KL", "distribution": "tic0", "value": 3.1, "floor_high": 16.5}
    assert exclusion(kl, evidence).startswith(PINNED)  # a KL that is no score says so before the TICA does
    assert exclusion(row, None) == ""


def test_the_kl_estimator_s_own_mark_wins_over_the_reading_of_value_and_floor(tmp_path):
    record = metrics_record("a", frames=60)
    record["metrics"]["we"]["kl_marks"] = {"rg": "bias", "tic0": "pinned", "bonds": ""}
    found = read_evidence(write_metrics(tmp_path, {"a": record}))["p"]
    row = {"engine": "a", "weighting": "we", "distribution": "rg", "value": 0.1, "floor_high": 0.2, "note": ""}
    assert kl_reason(row, found).startswith(BIASED) and kl_reason({**row, "distribution": "tic0"}, found) == PINNED
    # The estimator said "a score": its word stands over the fallback (which would call this floor pinned).
    assert kl_reason({**row, "distribution": "bonds", "floor_high": 16.0}, found) == ""
    # A distribution it did not mark (a record from before the marks): the fallback reads value and floor.
    assert kl_reason({**row, "distribution": "angles", "floor_high": 16.0}, found).startswith(PINNED)


@given(
    frames=st.integers(2, 10**6),
    exponent=st.integers(2, 12),
    value=st.floats(0, 40, allow_nan=False),
    floor=st.floats(0, 40, allow_nan=False),
)
def test_a_kl_is_pinned_exactly_when_it_or_its_floor_reaches_the_reachable_range(frames, exponent, value, floor):
    reachable = largest_reachable_kl(10.0**-exponent, frames)
    # abs_tol: two logs of about 14 cancel where frames is near 10**exponent (float64 leaves ~1e-15 of them)
    assert math.isclose(reachable, max(0.0, exponent * math.log(10) - math.log(frames)), abs_tol=1e-12)
    reason = kl_pinned({"value": value, "floor_high": floor, "note": ""}, reachable)
    expected = reachable > 0 and (value >= reachable or floor >= reachable / 2)
    assert bool(reason) == expected and (not reason or reason.startswith(PINNED))
    # The suite's own finding (its floor at or above the largest reachable value) is always pinned.
    note = "cannot be separated: no model could score above 16 against this ground truth; more runs"
    assert kl_pinned({"value": value, "floor_high": floor, "note": note}, reachable).startswith(PINNED)
