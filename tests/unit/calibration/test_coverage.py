"""How often the engines' intervals hold their known answers, W1 and KL apart (the rows: test_table_rows.py)."""

import pandas as pd

from westbench.calibration.coverage import interval_coverage


def test_a_table_without_covers_has_nothing_to_count():
    empty = {"cells": 0, "covered": 0, "rate": None}
    assert interval_coverage(pd.DataFrame({"expected": ["separated"]})) == {**empty, "all_cells": empty}


def test_w1_and_kl_are_counted_apart():
    table = pd.DataFrame(
        {
            "metric": ["w1", "w1", "kl"],
            "covers": [True, False, True],
            "expected": ["separated", "separated", "either"],
            "value": [0.3, 0.5, 0.2],
            "predicted_at_size": [0.25, 0.3, 0.3],
        }
    )
    result = interval_coverage(table)
    assert (result["cells"], result["covered"], result["all_cells"]["cells"]) == (2, 1, 3)
    assert result["by_metric"]["w1"]["resolved"] == {"cells": 2, "covered": 1, "rate": 0.5}
    assert result["by_metric"]["kl"]["resolved"] == {"cells": 0, "covered": 0, "rate": None}
    assert result["by_metric"]["kl"]["lean"] == {"above": 0, "below": 1, "uncovered_above": 0, "uncovered_below": 0}
