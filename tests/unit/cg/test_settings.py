"""Force matching's settings: one typed object whose keys are the schema's ``cg.training`` section (the keys the
presets override), with its defaults, in its order, refusing an unknown key or learning-rate schedule."""

import ast
from dataclasses import fields

import pytest
from hypothesis import given
from hypothesis import strategies as st

from westbench.cg.settings import TrainingSettings
from westbench.cg.train import preset_training
from westbench.config import ConfigError, load_schema, section_defaults, section_keys

from ...conftest import REPO
from ..plan.conftest import plan_with


def test_every_key_of_the_schema_is_a_field_with_its_default_in_the_schemas_order():
    assert [f.name for f in fields(TrainingSettings)] == list(section_keys("cg.training"))
    assert list(TrainingSettings().as_dict().items()) == list(section_defaults("cg.training").items())
    presets = load_schema()["properties"]["cg"]["properties"]["presets"]["additionalProperties"]["properties"]
    assert set(presets) == {f.name for f in fields(TrainingSettings)}  # a preset overrides the same keys


def test_every_preset_of_the_plan_and_the_calibration_study_is_read_as_given():
    plan = plan_with()
    for preset in plan.config["cg"]["presets"]:
        cg = plan.params.cg_training(preset)
        for job in (cg, plan.calibration.training_settings(cg)):
            training = preset_training(job, preset)
            assert TrainingSettings.of(training).as_dict() == {**section_defaults("cg.training"), **training}


@pytest.mark.parametrize("key", ["epochs", "lr", "presets"])
def test_an_unknown_key_is_refused_naming_the_schemas_keys(key):
    with pytest.raises(
        ValueError, match=rf"unknown cg.training setting\(s\) \['{key}'\].*config/schema.yaml.*lr_schedule"
    ):
        TrainingSettings.of({key: 1})


def test_an_unknown_learning_rate_schedule_is_a_config_error_naming_the_two():
    with pytest.raises(ConfigError, match=r"unknown lr_schedule 'cosine': constant or plateau"):
        TrainingSettings.of({"lr_schedule": "cosine"})


TRAINING = st.fixed_dictionaries(
    {},
    optional={
        "frame_fraction": st.floats(0.01, 1),
        "validation_fraction": st.floats(0.01, 0.99),
        "batch_size": st.integers(1, 512),
        "learning_rate": st.floats(1e-6, 1e-1),
        "max_epochs": st.integers(0, 1000),
        "lr_schedule": st.sampled_from(["constant", "plateau"]),
        "min_relative_drop": st.floats(0, 0.99),
    },
)


@given(training=TRAINING)
def test_a_mapping_over_the_defaults_and_back_as_the_summary_recorded_it(training):
    """``as_dict`` is what the training summary recorded before the object: the defaults with the mapping on top, in
    the schema's order."""
    settings = TrainingSettings.of(training)
    assert list(settings.as_dict().items()) == list({**section_defaults("cg.training"), **training}.items())
    assert TrainingSettings.of(settings.as_dict()) == settings and TrainingSettings.of(settings) is settings
    assert TrainingSettings.of(settings, max_epochs=3).max_epochs == 3  # frozen: a new object


def test_training_reads_no_setting_by_string_key():
    """``settings["learning_rate"]`` or ``settings.get("min_relative_drop", ...)`` is a second, untyped way in."""
    path = REPO / "src" / "westbench" / "cg" / "train.py"
    reads = []
    for node in ast.walk(ast.parse(path.read_text())):
        target = None
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            target = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            target = node.func.value
        if getattr(target, "id", None) in ("settings", "training"):
            reads.append(node.lineno)
    assert reads == []
