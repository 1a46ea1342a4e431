"""The report's calibration section: the claim, the checks in words, one row per engine with expected verdicts."""

import json

import pandas as pd

from westbench.calibration.table_rows import COLUMNS
from westbench.report.calibration import CLAIM, calibration_html, headline
from westbench.report.html_report import figure_html, html_table


def test_the_section_states_the_claim_the_result_and_each_expectation(tmp_path):
    rows = []
    for engine, kind, scale, value, verdict, expected in (
        ("reference", "null", 1.0, 0.1, "within noise", "within noise"),
        ("temperature_120", "perturbation", 1.2, 0.9, "separated", "separated"),
    ):
        for name in ("tic0", "tic1", "rg"):
            rows.append(
                {
                    **dict.fromkeys(COLUMNS),
                    "study": "s",
                    "engine": engine,
                    "kind": kind,
                    "temperature_scale": scale,
                    "contact_scale": 1.0,
                    "distribution": name,
                    "metric": "w1",
                    "value": value,
                    "ci_low": value / 2,
                    "ci_high": value * 2,
                    "floor": 0.1,
                    "floor_low": 0.05,
                    "floor_high": 0.2,
                    "verdict": verdict,
                    "predicted": value,
                    "expected": expected,
                    "agrees": True,
                }
            )
    pd.DataFrame(rows, columns=COLUMNS).to_csv(tmp_path / "calibration.csv", index=False)
    result = {
        "null_within_noise": True,
        "strongest_temperature_separated": True,
        "agreement": {"rows": 6, "agree": 6},
        "training": {"cg_undertrained": {"learned": False, "best_epoch": 0, "relative_drop": 0.0}},
    }
    (tmp_path / "calibration.json").write_text(json.dumps(result))
    html = calibration_html(tmp_path / "calibration.csv", tmp_path / "calibration.json", [], html_table, figure_html)
    assert CLAIM in html and "6 of 6 verdicts agree" in html
    # the one wording of a failure to learn (westbench.presentation.training), as the bottom line flags it
    assert "cg_undertrained failed to learn: epoch 0 kept, validation loss 0 % below the start" in html
    assert "expected: separated ✓" in html
    assert html.count("<tr>") == 3  # the heading and one row per engine


def test_a_failed_null_is_said_plainly():
    assert "a failed calibration" in headline({"null_within_noise": False})


def test_your_engines_are_named_as_scored_without_a_known_answer():
    text = headline({"agreement": {"rows": 4, "agree": 4}, "user_engines": ["cg_mine", "elastic"]})
    assert "your engines (cg_mine, elastic) are scored beside them, with no known answer" in text
    assert "your engines" not in headline({"agreement": {"rows": 4, "agree": 4}, "user_engines": []})


def test_a_ground_truth_that_drifted_is_named_with_what_drifted_and_the_key_to_change():
    check = {"equilibrated": False, "separated": [], "drifted": ["energy"]}
    text = headline({"agreement": {"rows": 4, "agree": 4}, "groundtruth_equilibrated": check})
    assert "differ on mean energy per run (NOT equilibrated" in text and "equilibration_ps" in text
    agreed = headline({"agreement": {"rows": 4, "agree": 4}, "groundtruth_equilibrated": {"equilibrated": True}})
    assert "agree (equilibrated)" in agreed


def test_the_coverage_is_stated_as_agreement_within_both_sides_noise_over_resolved_cells():
    result = {"agreement": {"rows": 4, "agree": 4}, "interval_coverage": {"cells": 11, "covered": 9, "rate": 0.818}}
    assert "the 95 % interval of their difference holds 0) in 9 of 11 resolved cells (82%)" in headline(result)
