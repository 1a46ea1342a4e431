"""A WE job's settings: one typed object whose keys are the ones the plan passes the job (the ``we`` section's job
keys, the engine's cap, ``batch_walkers``, ``coverage_bins``, ``user_engine``), with the schema's defaults."""

import ast
from dataclasses import fields

import pytest
from hypothesis import given
from hypothesis import strategies as st

from westbench.config import section_defaults
from westbench.plan.jobkeys import job_keys
from westbench.we.settings import WESettings

from ...conftest import REPO
from ..plan.conftest import plan_with

#: Keys a WE job gets besides the ``we`` section's job keys (westbench.plan.params.Params.we).
ADDED = {"max_iterations", "batch_walkers", "coverage_bins", "user_engine"}
TOY = {"name": "toy", "class": "westbench.engines.double_well:DoubleWell", "options": {"start_x": 0.5}}


def test_the_fields_are_the_keys_the_plan_passes_with_the_schemas_defaults():
    assert {f.name for f in fields(WESettings)} == set(job_keys("we_run")) | ADDED
    schema = section_defaults("we")
    resolved = WESettings().as_dict()
    assert {k: v for k, v in resolved.items() if k in schema} == {k: schema[k] for k in resolved if k in schema}
    assert resolved["coverage_bins"] == section_defaults("metrics")["coverage_bins"]
    assert resolved["user_engine"] is None


def test_every_we_job_of_the_plan_and_the_calibration_study_reads_its_settings_as_given():
    plan = plan_with(we={"engines": ["implicit", "explicit", "cg_fulltrained", TOY], "coverage_target": 0.5})
    for engine in plan.roster.engines:
        given = plan.params.we(engine)
        assert {k: v for k, v in WESettings.of(given).as_dict().items() if k in given} == given
    assert WESettings.of(plan.params.we("toy")).user_engine["name"] == "toy"
    study = plan_with(calibration={"engines": [TOY]}).calibration  # the null, perturbations, presets, toy
    for engine in study.engines:
        given = study.we_settings(engine)
        assert {k: v for k, v in WESettings.of(given).as_dict().items() if k in given} == given


@pytest.mark.parametrize("key", ["engines", "replicas", "bins_per_dim"])
def test_an_unknown_key_is_refused_naming_the_keys_of_the_schema(key):
    with pytest.raises(ValueError, match=rf"unknown we setting\(s\) \['{key}'\].*config/schema.yaml.*bins_per_tic"):
        WESettings.of({key: 1})


SETTINGS = st.fixed_dictionaries(
    {},
    optional={
        "bins_per_tic": st.integers(1, 20),
        "walkers_per_bin": st.integers(1, 10),
        "max_iterations": st.integers(1, 500),
        "max_wallclock_s": st.none() | st.floats(1, 1e6),
        "coverage_target": st.none() | st.floats(0, 1),
        "work_manager": st.sampled_from(["serial", "processes", "zmq"]),
        "batch_walkers": st.just("auto") | st.integers(1, 256),
        "coverage_bins": st.integers(2, 100),
        "user_engine": st.none() | st.just(TOY),
    },
)


@given(given_settings=SETTINGS)
def test_a_mapping_over_the_defaults_and_back(given_settings):
    settings = WESettings.of(given_settings)
    assert settings.as_dict() == {**WESettings().as_dict(), **given_settings}
    assert WESettings.of(settings.as_dict()) == settings and WESettings.of(settings) is settings
    assert WESettings.of(settings, bins_per_tic=99).bins_per_tic == 99  # frozen: a new object


def test_no_module_of_the_we_job_reads_a_setting_by_string_key():
    """``settings["bins_per_tic"]`` or ``settings.get("user_engine")`` is a second, untyped way in."""
    reads = []
    for name in ("launch.py", "engine_entry.py"):
        path = REPO / "src" / "westbench" / "we" / name
        for node in ast.walk(ast.parse(path.read_text())):
            target = None
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
                target = node.value
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
                target = node.func.value
            if getattr(target, "attr", getattr(target, "id", None)) == "settings":
                reads.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert reads == []
