"""Whether a perturbation family's divergence grows with its step: point estimates where the study resolves the
step, intervals wherever a step predicts an order (the checks that read them: test_checks.py)."""

import pandas as pd

from westbench.calibration.ordering import monotone, ordered
from westbench.calibration.table_rows import COLUMNS

from .study_data import table_row


def family(*steps):
    """The null and temperature steps (scale, value, expected), each interval its value +- 0.05."""
    rows = [table_row("reference", "null", value=0.05)]
    rows += [
        table_row(f"t{scale}", "perturbation", temperature=scale, value=value, verdict="separated", expected=expected)
        for scale, value, expected in steps
    ]
    for row in rows:
        row["ci_low"], row["ci_high"] = row["value"] - 0.05, row["value"] + 0.05
    return pd.DataFrame(rows, columns=COLUMNS)


def test_a_step_about_the_size_of_the_noise_is_held_by_the_intervals_not_the_point_estimates():
    table = family((1.1, 0.3, "separated"), (1.2, 0.28, "either"))
    assert monotone(table, "temperature") == {"w1 tic0": True}  # +20 % is not resolved: left out as the larger
    assert ordered(table, "temperature") == {"w1 tic0": True}  # its interval reaches +10 %'s
    resolved = family((1.1, 0.3, "separated"), (1.2, 0.28, "separated"))
    assert monotone(resolved, "temperature") == {"w1 tic0": False}
    below = family((1.1, 0.3, "separated"), (1.2, 0.1, "either"))
    assert ordered(below, "temperature") == {"w1 tic0": False}  # significantly below a smaller step


def test_a_family_of_one_step_is_ordered_but_not_judged_monotone():
    table = family((1.1, 0.3, "separated"))
    assert monotone(table, "temperature") == {} and ordered(table, "temperature") == {"w1 tic0": True}
    assert monotone(table, "contact") == {} and ordered(table, "contact") == {}  # no contact step
