"""The roster: every cross-check of the config is a ConfigError naming the key and the fix, made when the plan is
built (the workflow's parse), and the engines' kinds, work, runs and replicas."""

import re
import sys
import textwrap

import pytest

from westbench.engines.kinds import CG, OPENMM, USER, engine_work
from westbench.errors import ConfigError
from westbench.plan import Plan

from .conftest import config_with, plan_with

EXTERNAL = {"kind": "trajectories", "trajectories": "samples/*.dcd"}

#: Each cross-check of the config: the change that breaks it, and what the error must name (the key, the fix).
CHECKS = {
    "an engine named twice": (
        {"we": {"engines": ["implicit", "cg_fulltrained", "implicit"]}},
        r"we\.engines names \['implicit'\] more than once; give each engine one entry",
    ),
    "an external engine named like a WE engine": (
        {"external": {"implicit": EXTERNAL}},
        r"external engines \['implicit'\] share a name with we\.engines or 'groundtruth'; rename them",
    ),
    "an external engine named groundtruth": (
        {"external": {"groundtruth": EXTERNAL}},
        r"external engines \['groundtruth'\] share a name",
    ),
    "a CG engine without a preset or a model": (
        {"we": {"engines": ["cg_nope"]}},
        r"engine 'cg_nope': no preset 'nope' in cg\.presets \(fulltrained, undertrained\).*Fix: add a preset",
    ),
    "a user's model named like a preset": (
        {"cg": {"models": {"fulltrained": {"path": "models/m.pt", "format": "torchscript"}}}},
        r"cg\.models \['fulltrained'\] share a name with cg\.presets.*rename the model",
    ),
    "a user's model under results/": (
        {"cg": {"models": {"mine": {"path": "results/p/cg/m.pt", "format": "torchscript"}}}},
        r"cg\.models\.mine: path 'results/p/cg/m\.pt' is under results/.*Fix: keep your model outside results/",
    ),
    "start structures from a directory that is not set": (
        {"groundtruth": {"starts": {"source": "directory"}}},
        r"groundtruth\.starts\.directory is not set; set it to a folder of PDB files",
    ),
    "a calibration preset not in cg.presets": (
        {"calibration": {"presets": ["fulltrained", "missing"]}},
        r"calibration\.presets: no preset 'missing' in cg\.presets \(fulltrained, undertrained\)",
    ),
    "a calibration perturbation named like a trained model": (
        {"calibration": {"perturbations": {"cg_hot": {"temperature_scale": 1.2}}}},
        r"calibration\.perturbations \['cg_hot'\].*rename them",
    ),
    "a study engine running a CG model cg.models lacks": (
        {"calibration": {"engines": ["cg_mine"]}},
        r"calibration\.engines\[0\]: 'cg_mine' runs your CG model 'mine', but cg\.models has no models",
    ),
    "a study engine class that cannot be imported": (
        {"calibration": {"engines": [{"name": "mine", "class": "nowhere_pkg.mod:Engine"}]}},
        r"calibration\.engines\[0\] \(mine\): class 'nowhere_pkg\.mod:Engine' cannot be imported.*Fix",
    ),
    "a study engine named like a perturbation": (
        {"calibration": {"engines": [{"name": "contacts_80", "class": "westbench.engines.double_well:DoubleWell"}]}},
        r"calibration\.engines \['contacts_80'\]: the study already has an engine of that name",
    ),
    "a study engine given twice": (
        {
            "calibration": {"engines": ["cg_mine", "cg_mine"]},
            "cg": {"models": {"mine": {"path": "models/m.pt", "format": "torchscript"}}},
        },
        r"calibration\.engines: 'cg_mine' is given twice",
    ),
    "a perturbation's segments ending between saved frames": (
        {"calibration": {"perturbations": {"short": {"steps_per_segment": 7}}}},
        r"calibration\.perturbations\.short\.steps_per_segment 7 is not a multiple of calibration\.we\.save_every",
    ),
}


@pytest.mark.parametrize("case", list(CHECKS), ids=lambda case: case.replace(" ", "-"))
def test_each_cross_check_is_a_config_error_naming_the_key_and_the_fix(case):
    changes, message = CHECKS[case]
    config = config_with(**changes)  # the schema takes it: the check is the plan's
    with pytest.raises(ConfigError, match=message):
        Plan.from_config(config)


def test_the_checked_default_passes_and_the_calibration_checks_wait_for_the_study():
    assert plan_with().calibration.engines[0] == "reference"
    off = plan_with(calibration={"enabled": False, "presets": ["missing"]})  # a study that is off checks nothing
    assert off.calibration.engines == [] and off.targets.all_outputs() == [
        path for path in off.targets.all_outputs() if "calibration" not in path
    ]


def test_a_users_engine_entry_is_imported_and_checked_when_the_plan_is_built(tmp_path, monkeypatch):
    package = tmp_path / "byo" / "plan_test_engines"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "still.py").write_text(
        textwrap.dedent("""
            from westbench.engines.base import Engine
            class Still(Engine):
                def __init__(self, basis_pdb): ...
                def basis_state(self): ...
                def beads(self, state): ...
                def propagate(self, starts, n_steps, save_every, seeds): ...
        """)
    )
    monkeypatch.chdir(tmp_path)
    entry = {"name": "still", "class": "plan_test_engines.still:Still", "python_path": "byo", "work": "torch"}
    entry["options"] = {"basis_pdb": "{basis_pdb}"}
    plan = plan_with(we={"engines": ["implicit", entry, {**entry, "name": "still_mm", "work": "openmm"}]})
    roster = plan.roster
    assert [roster.kind(e) for e in roster.engines] == [OPENMM, USER, USER]
    assert [roster.work(e) for e in roster.engines] == ["openmm", "torch", "openmm"]
    assert plan.params.we_engine_cg("still") == {"device": "auto"} and plan.params.we_engine_cg("still_mm") == {}
    assert plan.params.we_engine_platform("still") == {} and plan.params.we_engine_platform("still_mm")
    assert plan.params.we("still")["user_engine"]["name"] == "still"
    gone = {**entry, "name": "gone", "class": "plan_test_engines.still:Gone"}
    with pytest.raises(
        ConfigError, match=r"we\.engines\[1\] \(gone\): module 'plan_test_engines\.still' has no 'Gone'"
    ):
        plan_with(we={"engines": ["implicit", gone]})
    for name in [name for name in sys.modules if name.partition(".")[0] == "plan_test_engines"]:
        del sys.modules[name]


def test_the_engine_work_has_one_owner_and_the_plan_asks_it(default_plan):
    roster = default_plan.roster
    assert (
        {e: roster.work(e) for e in roster.engines}
        == {e: engine_work(roster.kind(e)) for e in roster.engines}
        == {"implicit": "openmm", "explicit": "openmm", "cg_undertrained": "torch", "cg_fulltrained": "torch"}
    )
    assert engine_work(CG) == "torch" and engine_work(USER, {"work": "openmm"}) == "openmm"
    for kind in ("external", "groundtruth"):
        with pytest.raises(ConfigError, match=f"engine kind '{kind}' runs no WE job"):
            engine_work(kind)


def test_generated_starts_are_counted_per_protein():
    plan = plan_with(
        proteins=[
            {"id": "a", "name": "A", "sequence": "GYDPETGTWG", "source": "sequence"},
            {"id": "b", "name": "B", "sequence": "GYDPETGTWG", "source": "sequence", "n_starts": 2},
        ],
        groundtruth={"starts": {"count": 3}},
    )
    assert plan.roster.start_ids("a") == ["s0000", "s0001", "s0002"] and plan.roster.start_ids("b") == [
        "s0000",
        "s0001",
    ]
    assert plan.targets.groundtruth_frames("b") == [
        "results/b/groundtruth/runs/s0000/frames.h5",
        "results/b/groundtruth/runs/s0001/frames.h5",
    ]


def test_starts_from_a_directory_are_its_pdb_files_and_none_is_an_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "starts" / "chignolin").mkdir(parents=True)
    plan = plan_with(groundtruth={"starts": {"source": "directory", "directory": "starts/{protein}"}})
    with pytest.raises(ConfigError, match=r"protein 'chignolin': no \*\.pdb start structures in starts/chignolin"):
        plan.roster.start_ids("chignolin")
    for name in ("b_open.pdb", "a_folded.pdb", "notes.txt"):
        (tmp_path / "starts" / "chignolin" / name).write_text("")
    assert plan.roster.start_ids("chignolin") == ["a_folded", "b_open"]
    assert plan.inputs.starts("chignolin")["files"] == ["starts/chignolin/a_folded.pdb", "starts/chignolin/b_open.pdb"]


def test_imported_runs_are_named_by_their_files_and_a_glob_without_files_is_an_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    plan = plan_with(
        groundtruth={"source": "import", "import": {"trajectories": "gt/{protein}/*.xtc", "forces": "gt/{name}.npy"}}
    )
    with pytest.raises(ConfigError, match=r"groundtruth\.source is 'import' but .*matches no file"):
        plan.roster.start_ids("chignolin")
    (tmp_path / "gt" / "chignolin").mkdir(parents=True)
    for name in ("r2.xtc", "r1.xtc"):
        (tmp_path / "gt" / "chignolin" / name).write_text("")
    assert plan.roster.start_ids("chignolin") == ["r1", "r2"]
    files = plan.inputs.groundtruth_import("chignolin", "r2")
    assert files == {
        "trajectory": "gt/chignolin/r2.xtc",
        "prepared": "results/chignolin/prepare/prepared.pdb",
        "forces": "gt/r2.npy",
    }


def test_an_imported_trajectory_given_twice_is_a_config_error_naming_both_files(tmp_path, monkeypatch):
    """A copy of a run, or one run listed under two spellings, would count as two independent runs (twice the
    bootstrap's units): refused when the plan is built, naming both files and the key to fix."""
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "gt" / "chignolin"
    folder.mkdir(parents=True)
    (folder / "r1.xtc").write_bytes(b"run one")
    (folder / "r2.xtc").write_bytes(b"run two")
    listed = ["gt/{protein}/*.xtc", "gt/{protein}/../chignolin/r1.xtc"]
    plan = plan_with(groundtruth={"source": "import", "import": {"trajectories": listed}})
    with pytest.raises(
        ConfigError,
        match=r"groundtruth\.import\.trajectories gives the same trajectory twice: .*r1\.xtc and .*r1\.xtc "
        r"\(the same file\).*Fix: list each trajectory once",
    ):
        plan.roster.start_ids("chignolin")
    (folder / "r3.xtc").write_bytes(b"run two")  # a copy under another name
    plan = plan_with(groundtruth={"source": "import", "import": {"trajectories": "gt/{protein}/*.xtc"}})
    with pytest.raises(ConfigError, match=r"r2\.xtc and gt/chignolin/r3\.xtc \(identical content\)"):
        plan.roster.start_ids("chignolin")
    (folder / "r3.xtc").write_bytes(b"run three")
    assert plan.roster.start_ids("chignolin") == ["r1", "r2", "r3"]


def test_replicas_and_caps_per_engine_and_what_is_logged_about_them(default_plan):
    roster = default_plan.roster
    assert roster.we_replica_ids("implicit") == [0, 1, 2] and roster.we_replica_ids("explicit") == [None]
    assert [roster.we_max_iterations(e) for e in roster.engines] == [3, 2, 10, 10]
    notes = roster.notes()
    assert "we_run implicit: max_iterations 3 (from we.max_iterations_by_engine.implicit)" in notes
    assert "we_run implicit: 3 replicas (from we.replicas_by_engine.implicit)" in notes
    assert "we_run cg_fulltrained: max_iterations 10 (from we.max_iterations)" in notes
    assert not any(re.search("explicit: .* replicas", line) for line in notes)
