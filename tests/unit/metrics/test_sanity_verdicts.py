"""The engine sanity checks in an engine's scores: a failure makes every within-noise verdict undetermined with
the failure as its reason, keeps separated verdicts and the numbers, and is one metrics.csv row."""

import pandas as pd

from westbench.geometry.sanity import Check, SanityReport
from westbench.metrics.sanity_verdicts import sanity_row, undetermined_if_insane

FAILED = SanityReport(
    {
        "units": Check(False, 38.2, "3.3-4.3 Å", "median bond 38.2 Å"),
        "chirality": Check(False, -0.8, "> -0.25", "a mirror image"),
    }
)
PASSED = SanityReport({"units": Check(True, 3.8, "3.3-4.3 Å", "")})


def scores():
    values = {
        "w1": {"rg": 0.5, "tic0": 0.1},
        "verdicts": {"w1": {"rg": "separated", "tic0": "within noise"}, "kl": {"tic0": "within noise"}},
        "verdict_notes": {"w1": {}},
    }
    table = pd.DataFrame(
        {
            "distribution": ["rg", "tic0", "tic0"],
            "metric": ["w1", "w1", "kl"],
            "value": [0.5, 0.1, 0.2],
            "verdict": ["separated", "within noise", "within noise"],
            "note": ["", None, "few frames"],
        }
    )
    return values, table


def test_a_failed_check_makes_within_noise_undetermined_and_keeps_the_rest():
    values, table = scores()
    marked = undetermined_if_insane(values, table, FAILED)
    assert marked["verdict"].tolist() == ["separated", "undetermined", "undetermined"]
    assert marked["value"].tolist() == [0.5, 0.1, 0.2] and values["w1"] == {"rg": 0.5, "tic0": 0.1}
    why = marked["note"][1]
    assert why.startswith(f"the engine {FAILED.reason()}: ") and "chirality: a mirror image" in why
    assert marked["note"][2] == f"{why}; few frames" and marked["note"][0] == ""  # an existing note is kept after it
    assert values["verdicts"]["w1"] == {"rg": "separated", "tic0": "undetermined"}
    assert values["verdict_notes"] == {"w1": {"tic0": why}, "kl": {"tic0": why}}
    assert table["verdict"].tolist()[1] == "within noise"  # the table given is not changed


def test_a_passing_report_changes_nothing():
    values, table = scores()
    assert undetermined_if_insane(values, table, PASSED) is table
    assert values["verdicts"]["w1"]["tic0"] == "within noise" and values["verdict_notes"] == {"w1": {}}


def test_the_row_names_the_failed_checks_in_their_order():
    row = sanity_row(FAILED)
    assert (row["distribution"], row["metric"], row["value"]) == ("sanity", "failed", 2.0)
    assert row["note"] == ";".join(FAILED.failed) and set(row["note"].split(";")) == {"units", "chirality"}
    assert sanity_row(PASSED)["value"] == 0.0 and sanity_row(PASSED)["note"] == ""
