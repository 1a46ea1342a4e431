"""The trained engines' checks: the comparison of the presets and the distance to the force-matching floor."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from westbench.calibration.table_rows import COLUMNS
from westbench.calibration.training_checks import (
    NEAR_FLOOR_SHARE,
    floor_distance,
    training_checks,
    training_comparison,
)

from .study_data import table_row


def test_the_trained_comparison_counts_distributions():
    rows = [
        table_row("cg_fulltrained", "trained", distribution=d, value=v, expected="")
        for d, v in (("tic0", 0.1), ("tic1", 0.2), ("rg", 0.5))
    ]
    rows += [
        table_row("cg_undertrained", "trained", distribution=d, value=v, expected="")
        for d, v in (("tic0", 0.3), ("tic1", 0.1), ("rg", 0.9))
    ]
    table = pd.DataFrame(rows, columns=COLUMNS)
    assert training_comparison(table, "cg_fulltrained", "cg_undertrained") == {"closer_on": 2, "of": 3, "most": True}
    training = {
        "cg_undertrained": {
            "best_epoch": 0,
            "best_validation_loss": 5.0,
            "initial_validation_loss": 5.0,
            "learned": False,
        },
        "cg_fulltrained": {
            "best_epoch": 9,
            "best_validation_loss": 1.0,
            "initial_validation_loss": 5.0,
            "learned": True,
        },
    }
    result = training_checks(table, training)
    assert result["fulltrained_lower_loss"] and not result["training"]["cg_undertrained"]["learned"]
    # no floor recorded: nearness is not estimable, and not claimed
    assert result["fulltrained_near_floor"] == {"gap_left": None, "bound": NEAR_FLOOR_SHARE, "near": False}


@pytest.mark.parametrize(
    "best, near",
    [(100.0, True), (NEAR_FLOOR_SHARE * 1000.0, True), (NEAR_FLOOR_SHARE * 1000.0 + 1.0, False), (999.0, False)],
)
def test_the_fully_trained_is_near_the_floor_only_when_it_closed_the_share_of_the_gap(best, near):
    table = pd.DataFrame([table_row("cg_fulltrained", "trained", expected="")], columns=COLUMNS)
    record = {"best_epoch": 9, "initial_validation_loss": 1000.0, "best_validation_loss": best, "learned": True}
    result = training_checks(table, {"cg_fulltrained": {**record, "force_noise_floor": 0.0, "force_mean_square": 4e5}})
    assert result["fulltrained_near_floor"]["near"] is near
    assert result["training"]["cg_fulltrained"]["relative_force_error"] == pytest.approx(np.sqrt(best / 4e5), abs=1e-5)
    # the same losses above a floor of 500 leave a larger share of the gap
    raised = training_checks(table, {"cg_fulltrained": {**record, "force_noise_floor": 500.0}})
    raised = raised["fulltrained_near_floor"]
    assert raised["gap_left"] == pytest.approx((best - 500.0) / 500.0, abs=1e-5)


@given(
    start=st.floats(1.0, 1e6),
    floor=st.floats(0.0, 1e6),
    share=st.floats(0.0, 1.0),
)
def test_the_gap_left_is_the_share_of_the_way_to_the_floor_still_to_go(start, floor, share):
    assume(start > floor * (1 + 1e-6) + 1e-6)
    best = floor + share * (start - floor)
    gap = floor_distance({"initial_validation_loss": start, "best_validation_loss": best, "force_noise_floor": floor})
    assert gap["gap_left"] == pytest.approx(share, abs=1e-4)
