"""Plans built from config dicts (no Snakefile parsed): the embedded default with a test's changes."""

import copy

import pytest
import yaml

from westbench.config import validate_config
from westbench.plan import Plan

from ..conftest import REPO

#: The embedded default config as written (config/config.yaml).
DEFAULT = yaml.safe_load((REPO / "config" / "config.yaml").read_text())


def merged(base: dict, changes: dict) -> dict:
    """``base`` with ``changes`` merged in, section by section (a list or a value replaces), as --config does."""
    out = copy.deepcopy(base)
    for key, value in changes.items():
        out[key] = merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def config_with(**changes) -> dict:
    """The validated embedded default with ``changes`` (sections) merged in."""
    return validate_config(merged(DEFAULT, changes))


def plan_with(**changes) -> Plan:
    return Plan.from_config(config_with(**changes))


@pytest.fixture(scope="module")
def default_plan() -> Plan:
    return plan_with()
