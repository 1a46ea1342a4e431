"""The run's controls (westbench.metrics.controls): the null is within noise and gross failures are separated on a
large generated ground truth, a small one says it cannot tell, and the record is what the report reads."""

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.config import section_defaults
from westbench.errors import ConfigError
from westbench.io.frames import write_frames
from westbench.metrics.control_results import TABLE_COLUMNS, detected, resolution
from westbench.metrics.control_specs import KINDS, control_specs
from westbench.metrics.controls import ControlsEstimator, read_controls, run_controls, split_units
from westbench.metrics.noise_floor import SEPARATED, UNDETERMINED, WITHIN_NOISE

from .controls_data import helix_groundtruth

#: A fast suite: fewer replicates and splits than the workflow's, the same estimators.
FAST = {"bootstrap": 100, "floor_splits": 40}
GROSS = {
    "kinds": ["null_half", "rigid", "collapse", "mirror", "scale", "shift"],
    "scale_factors": [10.0],
    "tic0_shifts": [3.0],
}


@pytest.fixture(scope="module")
def large():
    """Controls of a ground truth of 24 runs x 40 frames (12 runs a side)."""
    frames, model = helix_groundtruth(runs=24, per_run=40, seed=1)
    return ControlsEstimator(GROSS, FAST, seed=11).fit(frames, model), frames, model


def by_name(result):
    return {c["name"]: c for c in result.controls}


def test_the_null_and_a_rigid_motion_are_within_noise_on_every_cell(large):
    result, _, _ = large
    for name in ("null_half", "rigid"):
        control = by_name(result)[name]
        verdicts = {cell["verdict"] for cells in control["cells"].values() for cell in cells.values()}
        assert verdicts == {WITHIN_NOISE}, (name, control["cells"])
        assert control["detected"] is False
        assert result.negatives[name] == {"within_noise": True, "separated": [], "sanity_failed": []}


def test_gross_failures_are_caught_where_they_act(large):
    result, _, _ = large
    controls = by_name(result)
    assert set(result.detects.values()) == {"yes"}, result.detects
    assert controls["mirror"]["cells"]["w1"]["dihedrals"]["verdict"] == SEPARATED
    assert controls["scale_x10"]["cells"]["w1"]["bonds"]["verdict"] == SEPARATED
    assert controls["shift_tic0_3sd"]["cells"]["w1"]["tic0"]["verdict"] == SEPARATED
    assert controls["collapse"]["cells"]["kl"]["tic0"]["verdict"] == SEPARATED
    assert result.resolution["w1"]["tic0"]["resolved"] and result.resolution["w1"]["dihedrals"]["resolved"]
    assert "mirror" in result.resolution["w1"]["dihedrals"]["separated_by"]
    # Engine sanity catches the gross ones on its own, whatever the ground truth's size.
    assert controls["mirror"]["sanity_failed"] == ["chirality"] and controls["scale_x10"]["sanity_failed"] == ["units"]
    assert controls["shift_tic0_3sd"]["sanity_failed"] == [] and result.caught_by_sanity["mirror image"] == "yes"


def test_the_mirror_moves_only_the_dihedrals_and_rigid_motion_nothing(large):
    """Both are scored on the same source frames as the null: every other cell is the null's own."""
    result, _, _ = large
    controls = by_name(result)
    null = controls["null_half"]["cells"]
    for metric, cells in controls["mirror"]["cells"].items():
        for name, cell in cells.items():
            if name != "dihedrals":
                assert cell["value"] == pytest.approx(null[metric][name]["value"], rel=1e-9, abs=1e-12), name
    for metric, cells in controls["rigid"]["cells"].items():
        for name, cell in cells.items():
            assert cell["value"] == pytest.approx(null[metric][name]["value"], rel=1e-3, abs=1e-3), name
            assert cell["verdict"] == null[metric][name]["verdict"]


def test_the_smallest_separated_value_is_a_control_value_above_its_floor(large):
    result, _, _ = large
    tic0 = result.resolution["w1"]["tic0"]
    values = {
        c["name"]: c["cells"]["w1"]["tic0"] for c in result.controls if c["kind"] == "failure" and "tic0" in c["moves"]
    }
    separated = [cell["value"] for cell in values.values() if cell["verdict"] == SEPARATED]
    assert tic0["smallest_separated"] == min(separated)
    assert all(cell["low"] > cell["floor_high"] for cell in values.values() if cell["verdict"] == SEPARATED)


def test_the_reference_and_the_controls_share_no_unit(large):
    result, frames, _ = large
    reference, source, units = split_units(frames, 11)
    assert not np.any(reference & source) and np.all(reference | source) and units == "24 runs"
    for traj in np.unique(frames["traj"]):  # a run is never split between the halves
        assert len(set(reference[frames["traj"] == traj])) == 1
    assert result.settings["reference_units"] == result.settings["control_units"] == 12
    assert "independent sample" in result.reference and "conservative" in result.reference


@settings(max_examples=12, deadline=None)
@given(runs=st.integers(1, 5), per_run=st.integers(1, 8), seed=st.integers(0, 20))
def test_a_ground_truth_too_small_for_intervals_cannot_tell(runs, per_run, seed):
    """Fewer than 6 runs: no interval on one side at least, so no control is decided (the honest answer)."""
    frames, model = helix_groundtruth(runs=runs, per_run=per_run, seed=seed)
    result = ControlsEstimator({}, {"bootstrap": 20, "floor_splits": 10}, seed=seed).fit(frames, model)
    assert len(result.controls) == len(control_specs())
    assert set(result.detects.values()) == {"cannot tell"}
    assert all(n["within_noise"] is None for n in result.negatives.values())
    assert not any(entry["resolved"] for cells in result.resolution.values() for entry in cells.values())
    for control in result.controls:
        verdicts = {cell["verdict"] for cells in control["cells"].values() for cell in cells.values()}
        assert verdicts <= {UNDETERMINED} and (control["note"] or not control["cells"])
    json.dumps(result.to_dict("p"), allow_nan=False, default=float)  # finite or null after finite_or_null


@settings(max_examples=8, deadline=None)
@given(runs=st.integers(2, 8), value=st.floats(-2, 2), seed=st.integers(0, 20))
def test_identical_frames_give_a_record_with_reasons_not_an_exception(runs, value, seed):
    frames, model = helix_groundtruth(runs=runs, per_run=3, seed=seed, noise_nm=0.0)
    frames["ca"][:] = frames["ca"][0]
    frames["tics"][:] = value
    result = ControlsEstimator({}, {"bootstrap": 20, "floor_splits": 10}, seed=seed).fit(frames, model)
    notes = {c["name"]: c["note"] for c in result.controls}
    assert "no spread" in notes["shift_tic0_1sd"] and "not made" in notes["temperature_x1.5"]
    assert all(c["detected"] is not True for c in result.controls if c["kind"] == "null")


def test_specs_expand_graded_levels_and_refuse_what_is_not_a_control():
    names = [spec.name for spec in control_specs()]
    assert len(names) == len(set(names)) and names[:2] == ["null_half", "rigid"]
    defaults = section_defaults("controls")
    assert sum(name.startswith("shift_tic0_") for name in names) == len(defaults["tic0_shifts"])
    assert {spec.family for spec in control_specs()} == set(KINDS)
    assert {spec.kind for spec in control_specs() if spec.family in ("null_half", "rigid")} == {"null"}
    assert [spec.moves for spec in control_specs({"kinds": ["mirror"]})] == [("dihedrals",)]
    with pytest.raises(ConfigError, match="controls.scale_factors"):
        control_specs({"scale_factors": [1.0]})
    with pytest.raises(ConfigError, match="controls.kinds"):
        control_specs({"kinds": ["bogus"]})


@settings(max_examples=50, deadline=None)
@given(
    verdicts=st.lists(st.sampled_from([SEPARATED, WITHIN_NOISE, UNDETERMINED]), min_size=1, max_size=6),
    moved=st.lists(st.booleans(), min_size=6, max_size=6),
)
def test_detection_reads_only_the_cells_a_failure_moves(verdicts, moved):
    names = [f"d{i}" for i in range(len(verdicts))]
    cells = {"w1": {n: {"verdict": v, "value": 1.0} for n, v in zip(names, verdicts)}}
    moves = [n for n, m in zip(names, moved) if m]
    seen = [v for n, v in zip(names, verdicts) if n in moves]
    expected = True if SEPARATED in seen else (False if WITHIN_NOISE in seen else None)
    assert detected(cells, moves, "failure") is expected
    assert detected(cells, (), "null") is (
        True if SEPARATED in verdicts else (False if WITHIN_NOISE in verdicts else None)
    )
    entry = resolution([{"kind": "failure", "name": "c", "moves": moves, "cells": cells}])["w1"]
    assert {entry[n]["resolved"] for n in names if n not in moves} <= {False}


def test_run_controls_writes_the_record_and_the_table_the_report_reads(tmp_path):
    frames, model = helix_groundtruth(runs=8, per_run=10, seed=2)
    write_frames(tmp_path / "gt.h5", attrs=frames.attrs, **{k: v for k, v in frames.items()})
    model.save(tmp_path / "model")
    record = run_controls(
        tmp_path / "gt.h5",
        tmp_path / "model.npz",
        None,
        {"kinds": ["null_half", "mirror"]},
        FAST,
        3,
        protein="toy",
        json_path=tmp_path / "controls.json",
        csv_path=tmp_path / "controls.csv",
    )
    read = read_controls(tmp_path / "controls.json")
    assert read == json.loads(json.dumps(record)) and read["protein"] == "toy"
    assert set(read) >= {"protein", "reference", "controls", "detects", "resolution", "settings", "seconds"}
    control = read["controls"][1]
    assert set(control) >= {"name", "kind", "failure_mode", "description", "expected", "detected", "cells"}
    assert set(control["cells"]["w1"]["dihedrals"]) >= {"value", "low", "high", "floor_high", "verdict"}
    assert set(read["resolution"]["kl"]["tic0"]) >= {"smallest_separated", "largest_within_noise", "resolved"}
    table = pd.read_csv(tmp_path / "controls.csv", keep_default_na=False)  # kind "null" is a word, not a NaN
    assert list(table.columns) == TABLE_COLUMNS and set(table["control"]) == {"null_half", "mirror"}
    assert set(table["kind"]) == {"null", "failure"} and len(table) == 2 * 18
    assert read_controls(tmp_path / "none.json") is None and read_controls(None) is None
