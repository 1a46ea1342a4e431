"""Every rule that runs code has a pinned conda environment providing every import of its script.

The imports are followed from each rule's script through the westbench modules it uses (every import
statement of each file, including those inside functions), so a package a library function needs on
the cluster cannot be missing from the rule's environment.
"""

import ast
import re
import sys
from pathlib import Path

import pytest
import yaml

from ..conftest import REPO

# Import name -> conda-forge packages any of which provides it.
PROVIDERS = {
    "openmm": {"openmm"},
    "pdbfixer": {"pdbfixer"},
    "mdtraj": {"mdtraj"},
    "deeptime": {"deeptime"},
    "numpy": {"numpy"},
    "scipy": {"scipy"},
    "pandas": {"pandas"},
    "h5py": {"h5py"},
    "matplotlib": {"matplotlib-base", "matplotlib"},
    "westpa": {"westpa"},
    "yaml": {"pyyaml"},
    "jsonschema": {"jsonschema"},
    "jinja2": {"jinja2"},
    "markupsafe": {"markupsafe", "jinja2"},
    "docutils": {"docutils"},
    "torch": {"pytorch"},
    "ot": {"pot"},
    "requests": {"requests"},
    "tqdm": {"tqdm"},
    "torchmdnet": {"torchmd-net"},
    "warp": {"warp-lang"},
}
# Provided by the executor (Snakemake injects `snakemake` into scripts) or by the project itself.
PROVIDED = {"snakemake", "_library", "westbench"}
DYNAMIC = re.compile(r"^westbench(\.\w+)+:\w+$")


def rule_blocks():
    """{rule name: its text} of every rule in rules/*.smk."""
    blocks = {}
    for path in sorted((REPO / "rules").glob("*.smk")):
        parts = re.split(r"^rule (\w+):\n", path.read_text(), flags=re.MULTILINE)
        for name, body in zip(parts[1::2], parts[2::2]):
            blocks[name] = body
    return blocks


def directive(body, name):
    match = re.search(rf"^    {name}:\n\s+\"([^\"]+)\"", body, re.MULTILINE)
    return match.group(1) if match else None


def module_file(module):
    base = REPO / "src" / Path(*module.split("."))
    return base.with_suffix(".py") if base.with_suffix(".py").is_file() else base / "__init__.py"


def imports_of(path, seen=None):
    """Top-level third-party import names of a file and of every westbench module it imports."""
    seen = set() if seen is None else seen
    if path in seen or not path.is_file():
        return set()
    seen.add(path)
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        modules = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and DYNAMIC.match(node.value):
            modules = [node.value.partition(":")[0]]  # an engine or pcoord loaded by "module:Class" at run time
        for module in modules:
            top = module.split(".")[0]
            if top == "westbench":
                names |= imports_of(module_file(module), seen)
            elif top not in sys.stdlib_module_names and top != "__future__":
                names.add(top)
    return names


def env_packages(path):
    """Package names of an environment: its conda packages and those of its pip section."""
    dependencies = yaml.safe_load(path.read_text())["dependencies"]
    pip = [d for entry in dependencies if isinstance(entry, dict) for d in entry.get("pip", [])]
    return {re.split(r"[=<>! ]", d)[0].lower() for d in [*dependencies, *pip] if isinstance(d, str)}


RULES = rule_blocks()
RUNNING = {name: body for name, body in RULES.items() if re.search(r"^    (script|shell|run):", body, re.MULTILINE)}


def test_rules_are_found():
    assert len(RUNNING) >= 10 and "groundtruth_run" in RUNNING


@pytest.mark.parametrize("rule", sorted(RUNNING))
def test_rule_has_a_conda_environment_providing_every_import(rule):
    body = RUNNING[rule]
    env = directive(body, "conda")
    assert env, f"rule {rule} has no conda: directive"
    env_path = (REPO / "rules" / env).resolve()
    assert env_path.is_file(), f"rule {rule}: {env_path} does not exist"
    script = directive(body, "script")
    if script is None:
        return
    packages = env_packages(env_path)
    for name in sorted(imports_of((REPO / "rules" / script).resolve()) - PROVIDED):
        assert name in PROVIDERS, f"rule {rule}: import {name!r} has no known conda package; add it to PROVIDERS"
        assert PROVIDERS[name] & packages, f"rule {rule}: {env} lacks {sorted(PROVIDERS[name])} for import {name!r}"


@pytest.mark.parametrize("env", sorted(p.name for p in (REPO / "envs").glob("*.yaml")))
def test_environment_pins_match_the_project_pins(env):
    """Every package of an environment is pinned, to the version pyproject.toml pins where both name it."""
    pins = {}
    for requirement in __import__("tomllib").loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]:
        name, _, version = requirement.partition("==")
        pins[name.lower()] = version
    aliases = {"matplotlib-base": "matplotlib", "pytorch": "torch"}
    for dependency in yaml.safe_load((REPO / "envs" / env).read_text())["dependencies"]:
        if not isinstance(dependency, str):
            continue
        name, _, version = dependency.partition("=")
        assert version, f"envs/{env}: {name} is not pinned"
        pinned = pins.get(aliases.get(name, name))
        if pinned:
            assert pinned.startswith(version), f"envs/{env}: {name}={version} but pyproject.toml pins {pinned}"
