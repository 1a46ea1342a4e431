"""Config defaults have one owner, config/schema.yaml, read through `section_defaults`."""

import ast
from pathlib import Path

from westbench.cg.settings import TrainingSettings
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
    assert TrainingSettings().as_dict() == section_defaults("cg.training")
    metrics = section_defaults("metrics")
    assert {k: METRIC_DEFAULTS.as_dict()[k] for k in metrics if k != "bootstrap"} == {
        k: v for k, v in metrics.items() if k != "bootstrap"
    }


def test_no_hand_typed_copy_of_a_schema_default():
    """`settings.get("key", <literal>)` repeating the schema's default for that key is a second owner."""
    defaults = schema_defaults(load_schema())
    copies = []
    for path in [*(REPO / "src").rglob("*.py"), *(REPO / "scripts").glob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "get"
                and len(node.args) == 2
                and isinstance(node.args[0], ast.Constant)
            ):
                try:
                    literal = ast.literal_eval(node.args[1])
                except ValueError:
                    continue
                if literal in defaults.get(node.args[0].value, []) and literal not in ({}, [], None):
                    copies.append(f"{path.relative_to(REPO)}:{node.lineno} {node.args[0].value}={literal!r}")
    assert not copies, "ask westbench.config.section_defaults instead: " + "; ".join(copies)


def same(value, default):
    """Equal as config values: True is not 1."""
    if isinstance(value, bool) or isinstance(default, bool):
        return type(value) is type(default) and value == default
    return value == default


def literal_defaults(tree):
    """(line, name, literal) of every default a module types: function and constructor keyword defaults, class
    (dataclass) fields, and keys of a dict literal that a `**mapping` then overrides (`{"key": 1, **settings}`)."""
    for node in ast.walk(tree):
        pairs = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = node.args
            positional = [*args.posonlyargs, *args.args]
            pairs += zip(positional[len(positional) - len(args.defaults) :], args.defaults)
            pairs += [(arg, value) for arg, value in zip(args.kwonlyargs, args.kw_defaults) if value is not None]
            pairs = [(arg.arg, value) for arg, value in pairs]
        elif isinstance(node, ast.ClassDef):
            pairs = [
                (item.target.id, item.value)
                for item in node.body
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and item.value is not None
            ]
        elif isinstance(node, ast.Dict) and None in node.keys:  # a ** spread after literal keys: defaults
            spread = node.keys.index(None)
            pairs = [
                (key.value, value)
                for key, value in zip(node.keys[:spread], node.values[:spread])
                if isinstance(key, ast.Constant) and isinstance(key.value, str)
            ]
        for name, value in pairs:
            try:
                yield value.lineno, name, ast.literal_eval(value)
            except ValueError:
                continue


# "path:name" of defaults still typed, each with why it is left: files other changes own now (issue 26). The test
# fails on any copy not listed, and on an entry here that no longer types one.
STILL_TYPED = {}
# Names that are schema keys but not that setting here.
NOT_A_SETTING = {
    "src/westbench/we/replicas.py:replicas": "a pooled run's replica count (1 for a single run), not we.replicas",
}


def test_no_default_argument_field_or_dict_default_retypes_a_schema_default():
    """A keyword default, dataclass field or `{"key": value, **settings}` equal to the schema's default of a key
    of that name is a second owner: take it from westbench.config.section_defaults or make it required."""
    defaults = schema_defaults(load_schema())
    copies = set()
    for path in [*(REPO / "src").rglob("*.py"), *(REPO / "scripts").glob("*.py")]:
        for line, name, literal in literal_defaults(ast.parse(path.read_text())):
            if literal in ({}, [], None) or not any(same(literal, d) for d in defaults.get(name, [])):
                continue
            copies.add(f"{path.relative_to(REPO)}:{name}")
    unlisted = copies - set(STILL_TYPED) - set(NOT_A_SETTING)
    assert not unlisted, "ask westbench.config.section_defaults or .default instead: " + "; ".join(sorted(unlisted))
    stale = (set(STILL_TYPED) | set(NOT_A_SETTING)) - copies
    assert not stale, f"no longer typed, remove from STILL_TYPED or NOT_A_SETTING: {sorted(stale)}"


def test_the_default_check_sees_each_form():
    found = {
        name
        for _, name, _ in literal_defaults(
            ast.parse(
                "def f(a, bins=100, *, kl_floor=1e-8): pass\n"
                "class C:\n    repeats: int = 3\n"
                "x = {'padding_nm': 1.0, **settings}\n"
            )
        )
    }
    assert found == {"bins", "kl_floor", "repeats", "padding_nm"}


def test_one_boltzmann_constant():
    owners = [
        path.relative_to(REPO) for path in (REPO / "src").rglob("*.py") if "BOLTZMANN_KJ_MOL_K = " in path.read_text()
    ]
    assert owners == [Path("src/westbench/constants.py")]
