"""The known-answer calibration study in the default DAG (fixed seeds): the scoring tells the reference from its
perturbations, in order, and both CG presets learn from the reference's forces (docs/calibration.md)."""

import json

import pandas as pd
import pytest

from westbench.calibration.table_rows import DISTRIBUTIONS

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def study(default_run):
    folder = default_run / "results" / "calibration" / "chignolin"
    table = pd.read_csv(default_run / "results" / "tables" / "calibration.csv")
    return table, json.loads((folder / "calibration.json").read_text()), folder


def headline(table):
    """The W1 rows (the table has a W1 and a KL row per distribution)."""
    return table[table["metric"] == "w1"]


def verdicts(table, engine):
    rows = headline(table)[headline(table)["engine"] == engine].set_index("distribution")
    return {name: rows.loc[name, "verdict"] for name in DISTRIBUTIONS}


def test_the_null_engine_is_within_noise_on_every_distribution(study):
    table, result, _ = study
    assert verdicts(table, "reference") == dict.fromkeys(DISTRIBUTIONS, "within noise")
    assert result["null_within_noise"]


def test_the_strongest_perturbations_are_separated(study):
    table, result, _ = study
    assert verdicts(table, "temperature_120") == dict.fromkeys(DISTRIBUTIONS, "separated")
    assert verdicts(table, "contacts_80")["tic0"] == verdicts(table, "contacts_80")["rg"] == "separated"
    # and on every distribution where the exact prediction says a perturbation of that size must be
    assert result["strongest_temperature_separated"] and result["strongest_contact_separated"]


def test_divergence_grows_with_the_perturbation(study):
    table, result, _ = study
    # Wherever the study resolves a step (the larger perturbation's prediction must come out separated), W1 grows
    # with it, null included; a step about the size of the noise is held only by the intervals below.
    for change in ("temperature", "contact"):
        assert result[f"{change}_monotone"] and all(result[f"{change}_monotone"].values()), change
        # both families: no larger perturbation significantly below a smaller one
        assert all(result[f"{change}_ordered"].values()), change
    for name in DISTRIBUTIONS:  # the strongest temperature step is resolved everywhere: above the null on each
        rows = headline(table)[headline(table)["distribution"] == name].set_index("engine")
        assert rows.loc["temperature_120", "value"] > rows.loc["reference", "value"], name


def test_every_expected_verdict_is_met(study):
    table, result, _ = study
    judged = table[~table["kind"].isin(["trained", "user"])]  # the engines with a known answer
    assert judged["agrees"].astype(str).eq("True").all(), judged[["engine", "distribution", "verdict", "expected"]]
    assert result["agreement"]["agree"] == result["agreement"]["rows"] == len(judged)


def test_both_cg_presets_learn_and_the_fully_trained_learns_more(study):
    _, result, folder = study
    for engine in ("cg_undertrained", "cg_fulltrained"):
        training = result["training"][engine]
        assert training["learned"] and training["best_epoch"] > 0
        assert training["best_validation_loss"] < training["initial_validation_loss"]
        metrics = json.loads((folder / "metrics" / engine / "metrics.json").read_text())
        assert metrics["training"]["learned"] and "training" not in metrics["not_estimable"]
    assert result["fulltrained_lower_loss"]
    # near the force-matching noise floor, which the study knows (the reference's exact forces: 0)
    assert result["training"]["cg_fulltrained"]["force_noise_floor"] == 0.0
    assert result["training"]["cg_fulltrained"]["force_noise_floor_source"] == "known"
    assert result["fulltrained_near_floor"]["near"], result["fulltrained_near_floor"]
    curve = pd.read_csv(folder / "cg" / "fulltrained" / "training.csv")
    assert curve["validation_loss"].min() < curve["validation_loss"].iloc[0]


def test_the_report_shows_the_study_first(study, default_run):
    html = (default_run / "results" / "report" / "westbench.html").read_text()
    assert "Calibration: does the benchmark tell a correct engine from wrong ones?" in html
    # first after the bottom line: before the caveats box and every table
    assert html.index("Calibration:") < html.index('<div class="caveats">')
    for name in ("resolution.png", "convergence.png"):
        assert (study[2] / "figures" / name).stat().st_size > 10_000
