"""Your engines in the calibration study (calibration.engines): what the plan gives their jobs, and nothing it
changes for the study's own engines."""

import pytest

from westbench.engines.kinds import CG, USER

from .conftest import plan_with

MODEL = {"path": "models/{protein}.pt", "format": "torchscript", "prior": "fitted"}
CLASS = {
    "name": "toy",
    "class": "westbench.engines.double_well:DoubleWell",
    "timestep_fs": 20.0,
    "options": {"start_x": 0.5},
}


@pytest.fixture(scope="module")
def plans():
    own = plan_with()
    mine = plan_with(calibration={"engines": ["cg_mine", CLASS]}, cg={"models": {"mine": MODEL}})
    return own.calibration, mine.calibration


def test_your_engines_follow_the_studys_own_and_change_nothing_of_theirs(plans):
    own, mine = plans
    assert mine.engines == [*own.engines, "cg_mine", "toy"]
    assert mine.user_engines() == ["cg_mine", "toy"] and own.user_engines() == []
    assert mine.trained_engines() == own.trained_engines()
    for engine in own.engines:
        assert mine.we_input(engine) == own.we_input(engine)
        assert mine.we_settings(engine) == own.we_settings(engine)
        assert mine.engine_cg(engine) == own.engine_cg(engine)
        assert mine.kind(engine) == CG


def test_your_cg_model_runs_on_the_studys_beads_checked_and_with_its_prior(plans):
    _, mine = plans
    inputs = mine.we_input("cg_mine")
    folder = mine.dir()
    assert inputs["model"] == "models/chignolin.pt"  # {protein}: the study's name; the file read in place
    assert inputs["basis"] == f"{folder}/native.pdb" and inputs["basis_states"] == f"{folder}/we/basis_states.npz"
    assert inputs["check"] == f"{folder}/cg/model_mine/check.json"
    assert inputs["prior"] == f"{folder}/cg/model_mine/prior.pt"
    cg = mine.engine_cg("cg_mine")
    assert cg["user_model"]["path"] == MODEL["path"] and cg["langevin"] == mine.langevin("reference")
    assert mine.training_record("cg_mine") == []
    assert (
        mine.prior_settings({"prior": {}, "langevin": {"temperature_k": 1.0}})["langevin"]["temperature_k"]
        == (mine.study["temperature_k"])
    )


def test_your_engine_class_gets_its_entry_the_studys_files_and_its_own_timestep(plans):
    _, mine = plans
    assert mine.kind("toy") == USER
    inputs = mine.we_input("toy")
    assert "model" not in inputs and {"basis", "basis_states", "tica", "groundtruth"} <= set(inputs)
    entry = mine.we_settings("toy")["user_engine"]
    assert entry["class"] == CLASS["class"] and entry["work"] == "torch"  # the schema's default for the study
    assert (
        mine.timestep_fs("toy") == 20.0 and mine.timestep_fs("reference") == mine.langevin("reference")["timestep_fs"]
    )
    assert mine.segment_ps()["toy"] == pytest.approx(mine.study["we"]["steps_per_segment"] * 20.0 / 1000)
    assert mine.engine_cg("toy") == {"device": "auto"} or set(mine.engine_cg("toy")) == {"device"}
    assert mine.table_perturbations()["toy"]["temperature_scale"] == 1.0
