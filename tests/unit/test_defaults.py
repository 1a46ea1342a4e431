"""Config defaults have one owner, config/schema.yaml, read through `section_defaults`."""

import ast

from westbench.cg.train import TRAINING_DEFAULTS
from westbench.config import load_schema, section_defaults
from westbench.metrics.suite import DEFAULTS as METRIC_DEFAULTS

from ..conftest import REPO


def schema_defaults(node, found=None):
    """{key: [default, ...]} of every property with a scalar or list default, anywhere in the schema."""
    found = {} if found is None else found
    for key, value in node.get("properties", {}).items():
        if "default" in value and not isinstance(value["default"], dict):
            found.setdefault(key, []).append(value["default"])
        schema_defaults(value, found)
    for child in ("additionalProperties", "items"):
        if isinstance(node.get(child), dict):
            schema_defaults(node[child], found)
    return found


def test_dotted_sections_and_library_defaults_come_from_the_schema():
    prior = load_schema()["properties"]["cg"]["properties"]["prior"]["properties"]
    assert section_defaults("cg.prior") == {k: v["default"] for k, v in prior.items() if "default" in v}
    assert TRAINING_DEFAULTS == section_defaults("cg.training")
    metrics = section_defaults("metrics")
    assert {k: METRIC_DEFAULTS[k] for k in metrics if k != "bootstrap"} == {k: v for k, v in metrics.items()
                                                                            if k != "bootstrap"}


def test_no_hand_typed_copy_of_a_schema_default():
    """`settings.get("key", <literal>)` repeating the schema's default for that key is a second owner."""
    defaults = schema_defaults(load_schema())
    copies = []
    for path in [*(REPO / "src").rglob("*.py"), *(REPO / "scripts").glob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                    and len(node.args) == 2 and isinstance(node.args[0], ast.Constant)):
                try:
                    literal = ast.literal_eval(node.args[1])
                except ValueError:
                    continue
                if literal in defaults.get(node.args[0].value, []) and literal not in ({}, [], None):
                    copies.append(f"{path.relative_to(REPO)}:{node.lineno} {node.args[0].value}={literal!r}")
    assert not copies, "ask westbench.config.section_defaults instead: " + "; ".join(copies)
