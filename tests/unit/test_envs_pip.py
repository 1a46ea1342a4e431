"""The pip sections of the per-rule conda environments (envs/*.yaml): pinned as pyproject.toml pins them, and
resolvable against the package index together with the environment's conda pins they depend on (pip's dry-run
resolver; the conda part needs conda-forge, which these machines cannot reach: docs/cluster.md lists it as
unverified)."""

import json
import os
import subprocess
import sys
import tomllib
import urllib.request

import pytest
import yaml

from ..conftest import REPO

ENVS = sorted(path.name for path in (REPO / "envs").glob("*.yaml"))
#: conda-forge names of the conda pins a pip section's packages depend on, and their names on the package index.
PYPI_NAMES = {"pytorch": "torch", "numpy": "numpy"}


def pip_section(env):
    for item in yaml.safe_load((REPO / "envs" / env).read_text())["dependencies"]:
        if isinstance(item, dict) and "pip" in item:
            return list(item["pip"])
    return []


def conda_pins(env):
    pins = {}
    for item in yaml.safe_load((REPO / "envs" / env).read_text())["dependencies"]:
        if isinstance(item, str) and "=" in item:
            name, version = item.split("=", 1)
            pins[name.strip()] = version.strip()
    return pins


def project_pins():
    pins = {}
    for requirement in tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]:
        name, _, version = requirement.partition("==")
        pins[name.strip().lower()] = version.strip()
    return pins


@pytest.mark.parametrize("env", [env for env in ENVS if pip_section(env)])
def test_pip_sections_pin_what_pyproject_pins(env):
    pins = project_pins()
    for requirement in pip_section(env):
        name, _, version = requirement.partition("==")
        assert version, f"envs/{env}: pip package {requirement} is not pinned with =="
        assert pins.get(name.lower()) == version, f"envs/{env}: {requirement} but pyproject.toml pins {pins.get(name)}"


def index_reachable(url="https://pypi.org/simple/pip/"):
    try:
        with urllib.request.urlopen(url, timeout=10):
            return True
    except OSError:
        return False


@pytest.mark.slow
@pytest.mark.parametrize("env", [env for env in ENVS if pip_section(env)])
def test_pip_sections_resolve_against_the_index(env, tmp_path):
    if not index_reachable():
        if os.environ.get("CI"):
            pytest.fail("the package index (pypi.org) is unreachable: CI needs it for this test")
        pytest.skip("the package index (pypi.org) is unreachable from this machine")
    conda = conda_pins(env)
    constraints = [f"{PYPI_NAMES[name]}=={conda[name]}" for name in PYPI_NAMES if name in conda]
    report = tmp_path / "report.json"
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet", "--report", str(report)]
        + pip_section(env)
        + constraints,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, f"envs/{env}: pip cannot resolve {pip_section(env) + constraints}:\n{result.stderr}"
    resolved = {
        item["metadata"]["name"].lower(): item["metadata"]["version"]
        for item in json.loads(report.read_text())["install"]
    }
    for requirement in pip_section(env) + constraints:
        name, _, version = requirement.partition("==")
        assert resolved[name.lower()].split("+")[0] == version, (env, name, resolved[name.lower()])
