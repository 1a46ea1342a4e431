"""Engine kinds: one decision, and the schema accepts exactly the names it decides."""

import re

import pytest

from westbench.config import load_schema
from westbench.engines.kinds import CG, EXTERNAL, GROUNDTRUTH, OPENMM, cg_preset_of, engine_kind
from westbench.errors import ConfigError


@pytest.mark.parametrize(
    "name, kind",
    [("implicit", OPENMM), ("explicit", OPENMM), ("cg_fulltrained", CG), ("cg_a_b1", CG), ("groundtruth", GROUNDTRUTH)],
)
def test_names_of_we_engines(name, kind):
    assert engine_kind(name) == kind


def test_external_names_win_over_patterns_and_unknown_names_are_refused():
    assert engine_kind("cg_external", external=["cg_external"]) == EXTERNAL
    with pytest.raises(ConfigError, match="unknown engine 'gromacs'.*external"):
        engine_kind("gromacs")
    with pytest.raises(ConfigError, match="not a CG engine"):
        cg_preset_of("implicit")
    assert cg_preset_of("cg_under_trained") == "under_trained"


@pytest.mark.parametrize("name", ["implicit", "explicit", "cg_fulltrained", "cg_x1", "cg_", "vacuum", "Implicit"])
def test_the_schema_pattern_accepts_what_engine_kind_accepts(name):
    pattern = load_schema()["properties"]["we"]["properties"]["engines"]["items"]["oneOf"][0]["pattern"]
    try:
        accepted_by_kinds = engine_kind(name) in (OPENMM, CG)
    except ConfigError:
        accepted_by_kinds = False
    assert bool(re.fullmatch(pattern.strip("^$"), name)) == accepted_by_kinds
