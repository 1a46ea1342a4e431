"""The study's checks read from its table: the null and dynamics-only engines within noise, the strongest
perturbation separated, the families ordered, and agreement with the expected verdicts."""

import pandas as pd

from westbench.calibration.checks import checks
from westbench.calibration.table_rows import COLUMNS

from .study_data import table_row


def test_checks_read_the_null_the_strongest_perturbation_and_the_ordering():
    rows = [table_row("reference", "null", value=0.05)]
    for scale, value in ((1.05, 0.1), (1.1, 0.3), (1.2, 0.6)):
        rows.append(
            table_row(
                f"t{scale}", "perturbation", temperature=scale, value=value, verdict="separated", expected="separated"
            )
        )
    result = checks(pd.DataFrame(rows, columns=COLUMNS), {})
    assert result["null_within_noise"] and result["strongest_temperature_separated"]
    assert result["temperature_monotone"] == {"w1 tic0": True}
    assert result["agreement"] == {"rows": 4, "agree": 4, "could_disagree": 4, "agree_of_those": 4}
    for row in rows:
        row["ci_low"], row["ci_high"] = row["value"] * 0.8, row["value"] * 1.2
    assert checks(pd.DataFrame(rows, columns=COLUMNS), {})["temperature_ordered"] == {"w1 tic0": True}
    rows[2]["value"] = 0.05  # +10 % below the null: not monotone
    rows[0]["verdict"] = "separated"  # a null that comes out separated fails the study
    result = checks(pd.DataFrame(rows, columns=COLUMNS), {})
    assert not result["null_within_noise"] and result["temperature_monotone"] == {"w1 tic0": False}
    rows[2]["ci_low"], rows[2]["ci_high"] = 0.04, 0.06  # and significantly so: its interval under the null's
    assert checks(pd.DataFrame(rows, columns=COLUMNS), {})["temperature_ordered"] == {"w1 tic0": False}


def test_hotter_and_colder_runs_are_ordered_only_along_their_own_direction():
    """A held-out colder run sits between the null and the hotter ones in size, and may score below a smaller hotter
    step: that breaks no ordering; a colder step below a smaller colder one does."""
    rows = [table_row("reference", "null", value=0.05)]
    for scale, value in ((1.1, 0.3), (1.2, 0.6), (0.85, 0.2), (0.7, 0.5)):
        rows.append(
            table_row(
                f"t{scale}", "perturbation", temperature=scale, value=value, verdict="separated", expected="separated"
            )
        )
    for row in rows:
        row["ci_low"], row["ci_high"] = row["value"] * 0.9, row["value"] * 1.1
    result = checks(pd.DataFrame(rows, columns=COLUMNS), {})
    assert result["temperature_monotone"] == {"w1 tic0": True} and result["temperature_ordered"] == {"w1 tic0": True}
    assert result["strongest_temperature"] == {"w1 tic0": "separated"}  # 0.7: the largest step of either direction
    rows[4]["value"], rows[4]["ci_low"], rows[4]["ci_high"] = 0.1, 0.09, 0.11  # -30 % below -15 %
    result = checks(pd.DataFrame(rows, columns=COLUMNS), {})
    assert result["temperature_monotone"] == {"w1 tic0": False} and result["temperature_ordered"] == {"w1 tic0": False}


def test_a_strongest_perturbation_predicted_only_either_must_still_be_separated_somewhere():
    """Where no prediction of the strongest step clears the separated bar (seen for contacts 20 % weaker: W1 of TIC 1
    within noise, TIC 0 and Rg separated, every expectation "either"), the check asks one separated distribution."""
    rows = [table_row("reference", "null", value=0.05)]
    for name, verdict in (("tic0", "separated"), ("tic1", "within noise"), ("rg", "separated")):
        rows.append(
            table_row(
                "c0.8", "perturbation", contacts=0.8, distribution=name, value=0.3, verdict=verdict, expected="either"
            )
        )
    assert checks(pd.DataFrame(rows, columns=COLUMNS), {})["strongest_contact_separated"]
    for row in rows[1:]:
        row["verdict"] = "within noise"
    assert not checks(pd.DataFrame(rows, columns=COLUMNS), {})["strongest_contact_separated"]
    rows[1]["verdict"], rows[1]["expected"] = "separated", "separated"
    rows[2]["expected"] = "separated"  # expected separated but within noise: fails whatever the others say
    assert not checks(pd.DataFrame(rows, columns=COLUMNS), {})["strongest_contact_separated"]


def test_engines_that_change_only_their_dynamics_must_come_out_within_noise_wherever_decided():
    rows = [table_row("reference", "null")]
    rows += [table_row("friction_x10", "dynamics", distribution=d) for d in ("tic0", "tic1")]
    rows.append(table_row("friction_x10", "dynamics", distribution="rg", verdict="undetermined"))
    result = checks(pd.DataFrame(rows, columns=COLUMNS), {})
    assert result["dynamics_within_noise"]
    assert result["dynamics_verdicts"] == {"cells": 3, "determined": 2, "within_noise": 2, "separated": []}
    rows[1]["verdict"] = "separated"
    result = checks(pd.DataFrame(rows, columns=COLUMNS), {})
    assert not result["dynamics_within_noise"] and result["dynamics_verdicts"]["separated"] == ["friction_x10: w1 tic0"]
    # the dynamics-only engine never joins a temperature or contact family (no size to order it by)
    assert "temperature_monotone" not in result


def test_cells_expected_either_cannot_disagree_and_are_counted_apart():
    rows = [
        table_row("reference", "null"),
        table_row("t1.1", "perturbation", temperature=1.1, verdict="within noise", expected="either"),
        table_row("t1.2", "perturbation", temperature=1.2, verdict="within noise", expected="separated"),
    ]
    agreement = checks(pd.DataFrame(rows, columns=COLUMNS), {})["agreement"]
    assert agreement == {"rows": 3, "agree": 2, "could_disagree": 2, "agree_of_those": 1}


def test_steps_predicted_within_noise_are_not_held_to_an_order():
    """A distribution where every step is expected within noise (a contact change's KL of bonds) predicts no order:
    noise that reverses two steps there is not a failed ordering; where a step is resolved, it still is."""
    rows = [table_row("reference", "null", value=0.01, distribution="bonds")]
    for scale, value, expected in ((0.9, 0.05, "within noise"), (0.8, 0.02, "within noise")):
        rows.append(
            table_row(f"c{scale}", "perturbation", contacts=scale, distribution="bonds", value=value, expected=expected)
        )
    for row in rows:
        row["ci_low"], row["ci_high"] = row["value"] * 0.9, row["value"] * 1.1
    assert "w1 bonds" not in checks(pd.DataFrame(rows, columns=COLUMNS), {})["contact_ordered"]
    rows[1]["expected"] = rows[2]["expected"] = "either"  # both claim a size: -20 %'s 0.022 under -10 %'s 0.045
    assert checks(pd.DataFrame(rows, columns=COLUMNS), {})["contact_ordered"] == {"w1 bonds": False}
