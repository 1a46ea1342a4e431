"""The controls in the plan (rule controls): one job per protein in the default target and the report's inputs
when controls.enabled, none otherwise; its params hold only what it reads."""

from westbench.config import section_defaults
from westbench.plan.jobkeys import job_keys
from westbench.seeds import STAGES

from .conftest import plan_with


def test_every_protein_has_its_controls_in_the_default_target_and_the_report(default_plan):
    files = default_plan.targets.controls_outputs()
    assert files == ["results/chignolin/controls/controls.json"]
    assert set(files) <= set(default_plan.targets.all_outputs())
    assert default_plan.targets.report_records()["controls"] == default_plan.roster.proteins
    assert default_plan.layout.controls("{protein}", "controls.csv") == "results/{protein}/controls/controls.csv"


def test_disabled_controls_leave_no_job_and_no_report_input():
    plan = plan_with(controls={"enabled": False})
    assert plan.targets.controls_outputs() == [] and plan.targets.report_records()["controls"] == []
    assert not any("/controls/" in path for path in plan.targets.all_outputs())


def test_the_controls_read_their_section_less_enabled_and_the_suite_keys_of_their_scores(default_plan):
    settings = default_plan.params.controls()
    assert "enabled" not in settings and set(settings) == set(section_defaults("controls")) - {"enabled"}
    metrics = default_plan.params.controls_metrics()
    assert list(metrics) == list(job_keys("controls_metrics")) and "weightings" not in metrics
    assert {"bins", "kl_floor", "bootstrap", "floor_splits", "min_effective_frames"} <= set(metrics)
    # A table setting or a figure setting reruns no control.
    edited = plan_with(metrics={"coverage_thresholds": [0.3], "scatter_max_points": 5000, "weightings": ["we"]})
    assert repr(edited.params.controls_metrics()) == repr(metrics)
    assert "controls" in STAGES and default_plan.params.seed("chignolin", "controls") != default_plan.params.seed(
        "chignolin", "metrics"
    )
