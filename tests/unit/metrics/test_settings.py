"""The metric suite's settings: one typed object whose keys are the schema's ``metrics`` section and the seed."""

import ast
from dataclasses import fields

import pytest

from westbench.config import section_defaults
from westbench.metrics.settings import MetricSettings
from westbench.metrics.suite import DEFAULTS, suite_settings

from ...conftest import REPO


def test_every_key_of_the_schema_is_a_field_with_its_default_and_nothing_else():
    schema = section_defaults("metrics")
    assert {f.name for f in fields(MetricSettings)} == set(schema) | {"seed"}
    assert {k: v for k, v in MetricSettings().as_dict().items() if k != "seed"} == schema


def test_a_mapping_over_the_defaults_lists_as_tuples_and_back():
    settings = MetricSettings.of({"weightings": ["we", "msm"], "bins": 7}, seed=3)
    assert settings.weightings == ("we", "msm") and settings.bins == 7 and settings.seed == 3
    assert settings.as_dict()["weightings"] == ["we", "msm"]
    assert MetricSettings.of(settings) is settings
    assert MetricSettings.of(settings, bins=9).bins == 9 and settings.bins == 7  # frozen: a new object


@pytest.mark.parametrize("key", ["bin", "msm_grid", "kl_neighbors"])
def test_an_unknown_key_is_refused_naming_the_schema_section(key):
    with pytest.raises(ValueError, match=rf"unknown metrics setting\(s\) \['{key}'\].*config/schema.yaml"):
        MetricSettings.of({key: 1})


def test_the_suite_reads_attributes_and_skips_the_bootstrap_unless_asked():
    assert suite_settings(None).bootstrap == 0 == DEFAULTS.bootstrap
    assert suite_settings({"bootstrap": 50}).bootstrap == 50
    assert suite_settings({}).msm_bins == section_defaults("metrics")["msm_bins"]
    given = MetricSettings.of(bootstrap=7)
    assert suite_settings(given) is given


def test_no_module_of_the_suite_reads_a_setting_by_string_key():
    """``settings["bins"]`` or ``settings.get("bins", ...)`` on the suite's settings is a second, untyped way in."""
    reads = []
    for path in sorted((REPO / "src" / "westbench" / "metrics").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            target = None
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
                target = node.value
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
                target = node.func.value
            name = getattr(target, "attr", getattr(target, "id", None))
            if name == "settings":
                reads.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert reads == []
