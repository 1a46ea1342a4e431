"""The study's table rows: every metric and distribution an engine reports, its known answer beside it, and whether
the difference interval (or the engine's interval) holds the answer at the engine's size."""

import pandas as pd
import pytest

from westbench.calibration.coverage import interval_coverage
from westbench.calibration.predictions import floor_medians
from westbench.calibration.table_rows import COLUMNS, engine_rows


def test_every_metric_and_distribution_an_engine_reports_gets_a_row_with_whether_its_interval_holds_the_answer():
    record = {
        "metrics": {
            "we": {
                "w1": {"tic0": 0.3, "angles": 2.0},
                "kl": {"tic0": 0.5},
                "intervals": {"w1": {"tic0": {"low": 0.25, "high": 0.35}}, "kl": {"tic0": {"low": 0.4, "high": 0.6}}},
                "verdicts": {"w1": {"tic0": "separated", "angles": "undetermined"}, "kl": {"tic0": "separated"}},
                "verdict_notes": {"w1": {"angles": "few frames carry the weight"}},
                "noise_floor": {"w1": {"tic0": {"value": 0.05, "low": 0.02, "high": 0.08}}},
            }
        }
    }
    predicted = {("w1", "tic0"): 0.35, ("kl", "tic0"): 0.9, ("w1", "angles"): 1.0}
    rows = pd.DataFrame(engine_rows("s", "t1.2", "perturbation", {}, record, "we", predicted), columns=COLUMNS)
    assert sorted(zip(rows["metric"], rows["distribution"])) == [("kl", "tic0"), ("w1", "angles"), ("w1", "tic0")]
    by = rows.set_index(["metric", "distribution"])
    assert by.loc[("w1", "tic0"), "covers"] and not by.loc[("kl", "tic0"), "covers"]
    assert by.loc[("w1", "tic0"), "headline"] and not by.loc[("w1", "angles"), "headline"]
    assert by.loc[("w1", "angles"), "note"] == "few frames carry the weight"
    assert interval_coverage(rows) == {
        "cells": 1,  # only W1 of TIC 0 is resolved (expected separated): the others have no floor here
        "covered": 1,
        "rate": 1.0,
        "all_cells": {"cells": 2, "covered": 1, "rate": 0.5},
        # both scores lie below their answer; the KL's interval misses it, below
        "lean": {
            "resolved": {"above": 0, "below": 1, "uncovered_above": 0, "uncovered_below": 0},
            "all_cells": {"above": 0, "below": 2, "uncovered_above": 0, "uncovered_below": 1},
        },
        "by_metric": {  # W1 and KL apart
            "kl": {
                "resolved": {"cells": 0, "covered": 0, "rate": None},
                "all_cells": {"cells": 1, "covered": 0, "rate": 0.0},
                "lean": {"above": 0, "below": 1, "uncovered_above": 0, "uncovered_below": 1},
            },
            "w1": {
                "resolved": {"cells": 1, "covered": 1, "rate": 1.0},
                "all_cells": {"cells": 1, "covered": 1, "rate": 1.0},
                "lean": {"above": 0, "below": 1, "uncovered_above": 0, "uncovered_below": 0},
            },
        },
    }


def test_with_a_difference_interval_covers_asks_whether_it_holds_zero_not_whether_the_interval_holds_the_answer():
    """The known answer has noise of its own: the interval of score minus answer decides, where there is one."""
    record = {
        "metrics": {
            "we": {
                "w1": {"tic0": 0.3, "rg": 0.3},
                "intervals": {"w1": {"tic0": {"low": 0.2, "high": 0.4}, "rg": {"low": 0.2, "high": 0.4}}},
                "verdicts": {"w1": {"tic0": "separated", "rg": "separated"}},
            }
        }
    }
    predicted = {("w1", "tic0"): 0.45, ("w1", "rg"): 0.35}
    differences = {("w1", "tic0"): (-0.2, 0.01), ("w1", "rg"): (0.01, 0.2)}
    rows = engine_rows("s", "t1.2", "perturbation", {}, record, "we", predicted, differences)
    by = pd.DataFrame(rows, columns=COLUMNS).set_index("distribution")
    assert by.loc["tic0", "covers"] and not by.loc["rg", "covers"]  # the opposite of the engine's interval alone
    assert (by.loc["tic0", "difference_low"], by.loc["rg", "difference_high"]) == (-0.2, 0.2)


def test_rows_read_the_difference_against_the_answer_at_the_engines_size():
    record = {
        "metrics": {
            "we": {
                "w1": {"tic0": 0.12},
                "intervals": {"w1": {"tic0": {"low": 0.05, "high": 0.2}}},
                "verdicts": {"w1": {"tic0": "within noise"}},
                "noise_floor": {"w1": {"tic0": {"value": 0.1, "low": 0.04, "high": 0.2}}},
            }
        }
    }
    # the null: its answer 0, at its size the floor's median; the bootstrap's interval of score minus 0
    predicted, at_size = {("w1", "tic0"): 0.0}, floor_medians(record, "we")
    assert at_size == {("w1", "tic0"): 0.1}
    differences = {("w1", "tic0"): (0.04, 0.19)}
    bare = pd.DataFrame(
        engine_rows("s", "reference", "null", {}, record, "we", predicted, differences), columns=COLUMNS
    )
    sized = pd.DataFrame(
        engine_rows("s", "reference", "null", {}, record, "we", predicted, differences, at_size), columns=COLUMNS
    )
    assert not bare.loc[0, "covers"] and sized.loc[0, "covers"]
    assert sized.loc[0, "predicted"] == 0.0 and sized.loc[0, "predicted_at_size"] == 0.1
    assert (sized.loc[0, "difference_low"], sized.loc[0, "difference_high"]) == pytest.approx((-0.06, 0.09))
    lean = interval_coverage(sized)["lean"]["all_cells"]
    assert lean == {"above": 1, "below": 0, "uncovered_above": 0, "uncovered_below": 0}
