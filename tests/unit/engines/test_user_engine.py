"""A user's engine class as one we.engines entry: schema, import from the user's folder, contract errors."""

import sys
import textwrap

import numpy as np
import pytest

from westbench.config import validate_config
from westbench.engines.base import load_engine
from westbench.engines.user import check_engine_entry, user_engine_spec
from westbench.errors import ConfigError

PROTEIN = {"id": "p", "name": "P", "sequence": "GYDPETGTWG", "source": "sequence"}
ENGINE = textwrap.dedent("""
    import numpy as np
    from westbench.engines.base import Engine, SegmentResult, WalkerState
    from . import helpers

    class Still(Engine):
        def __init__(self, basis_pdb, n_beads=2):
            self.basis_pdb, self.n = basis_pdb, n_beads
        def basis_state(self):
            return WalkerState(np.zeros((self.n, 3)) + helpers.OFFSET)
        def beads(self, state):
            return state.positions
        def propagate(self, starts, n_steps, save_every, seeds):
            return [SegmentResult(np.repeat(s.positions[None], n_steps // save_every, 0), s) for s in starts]

    class NoPropagate:
        def basis_state(self): ...
        def beads(self, state): ...
""")


@pytest.fixture
def user_folder(tmp_path, monkeypatch):
    package = tmp_path / "byo" / "userengines_pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "helpers.py").write_text("OFFSET = 1.0\n")
    (package / "still.py").write_text(ENGINE)
    monkeypatch.chdir(tmp_path)
    yield "byo"
    for name in [name for name in sys.modules if name.partition(".")[0] == "userengines_pkg"]:
        del sys.modules[name]  # each test imports the user's package afresh


def entry(**changes):
    return {
        "name": "mine",
        "class": "userengines_pkg.still:Still",
        "python_path": "byo",
        "options": {"basis_pdb": "{basis_pdb}"},
        **changes,
    }


def test_the_schema_takes_an_entry_with_defaults_and_refuses_builtin_names():
    config = validate_config({"proteins": [PROTEIN], "we": {"engines": ["implicit", entry()]}})
    mine = config["we"]["engines"][1]
    assert (mine["work"], mine["system"], mine["timestep_fs"]) == ("openmm", "implicit", None)
    for name in ("implicit", "groundtruth", "cg_x", "Mine"):
        with pytest.raises(ConfigError, match=r"we\.engines\[0\]"):
            validate_config({"proteins": [PROTEIN], "we": {"engines": [entry(name=name)]}})
    with pytest.raises(ConfigError, match=r"we\.engines\[0\]"):
        validate_config({"proteins": [PROTEIN], "we": {"engines": [entry(**{"class": "no_colon"})]}})


def test_a_class_from_the_users_folder_is_checked_and_built_in_a_worker(user_folder, tmp_path):
    assert check_engine_entry(entry(), 0).__name__ == "Still"
    spec = user_engine_spec(entry(), "p", {"basis": "prepare/implicit.pdb", "tica": "x"}, block_size=5)
    assert spec["options"]["basis_pdb"] == str(tmp_path / "prepare" / "implicit.pdb")
    assert spec["python_path"] == str(tmp_path / "byo") and spec["block_size"] == 5
    engine = load_engine(spec)  # as a WESTPA worker builds it
    assert np.allclose(engine.basis_state().positions, 1.0)  # its sibling module, imported relatively
    assert engine.propagate([engine.basis_state()], 10, 5, [1])[0].frames.shape == (2, 2, 3)


@pytest.mark.parametrize(
    "changes, message",
    [
        (
            {"python_path": None},
            r"we\.engines\[3\] \(mine\): class 'userengines_pkg.still:Still' cannot be imported.*"
            r"no python_path.*Fix: set the entry's `python_path`",
        ),
        ({"python_path": "elsewhere"}, r"cannot be imported.*resolved to .*elsewhere.*Fix"),
        (
            {"class": "userengines_pkg.still:Moving"},
            r"module 'userengines_pkg.still' has no 'Moving'.*Fix: correct `class`",
        ),
        (
            {"class": "userengines_pkg.still:NoPropagate"},
            r"does not meet the engine contract: it has no method propagate"
            r".*Fix: subclass westbench.engines.base.Engine",
        ),
        (
            {"options": {"basis_pdb": "x", "speed": 2}},
            r"does not take option\(s\) speed \(it takes basis_pdb, n_beads\)",
        ),
        ({"options": {}}, r"needs option\(s\) basis_pdb.*\{basis_pdb\}"),
    ],
)
def test_an_entry_that_cannot_run_is_a_clear_error_naming_it_and_the_fix(user_folder, changes, message):
    with pytest.raises(ConfigError, match=message):
        check_engine_entry(entry(**changes), 3)


def test_the_pages_ml_potential_class_runs_with_a_stand_in_potential(tmp_path, monkeypatch):
    """docs/bring-your-own.md's ANI2x class, as written, with a fake openmmml whose createSystem returns a
    system this test builds (amber14 in vacuum): the all-atom ML route's wiring without the weights."""
    import re
    import types

    from openmm import app

    from ...conftest import REPO
    from .systems import prepare_chignolin

    page = (REPO / "docs" / "bring-your-own.md").read_text()
    code = re.search(r"^```python file=byo/my_engines/ani.py\n(.*?)^```", page, re.S | re.M).group(1)
    package = tmp_path / "byo" / "userengines_ml"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "ani.py").write_text(code)
    built = []

    class MLPotential:
        def __init__(self, name):
            self.name = name

        def createSystem(self, topology):
            built.append(self.name)
            return app.ForceField("amber14-all.xml").createSystem(
                topology, nonbondedMethod=app.NoCutoff, constraints=app.HBonds
            )

    monkeypatch.setitem(sys.modules, "openmmml", types.SimpleNamespace(MLPotential=MLPotential))
    monkeypatch.chdir(tmp_path)
    files = prepare_chignolin(tmp_path)
    entry = {
        "name": "ani2x",
        "class": "userengines_ml.ani:ANI2x",
        "python_path": "byo",
        "work": "openmm",
        "options": {
            "system_xml": "{system_xml}",
            "state_xml": "{state_xml}",
            "topology_pdb": "{topology_pdb}",
            "integrator": {"temperature_k": 300.0, "friction_per_ps": 1.0, "timestep_fs": 1.0},
            "platform": {"name": "CPU"},
            "batch_walkers": 1,
        },
    }
    try:
        check_engine_entry(entry, 0)
        spec = user_engine_spec(entry, "chignolin", dict(zip(("system", "state", "topology"), files)), block_size=2)
        engine = load_engine(spec)
        results = engine.propagate([engine.basis_state()] * 2, 20, 10, [1, 2])
    finally:
        for name in [name for name in sys.modules if name.partition(".")[0] == "userengines_ml"]:
            del sys.modules[name]
    assert built == ["ani2x"] and [r.status for r in results] == ["ok", "ok"]
    assert results[0].frames.shape == (2, 10, 3)
