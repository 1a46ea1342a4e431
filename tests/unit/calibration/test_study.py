"""The study's engines: equilibrium perturbations, dynamics-only ones, and what each engine runs."""

import pytest

from westbench.calibration.study import dynamics, engine_langevin, engines, is_dynamics_only, segment_ps
from westbench.errors import ConfigError

STUDY = {
    "temperature_k": 300.0,
    "langevin": {"timestep_fs": 40.0, "friction_per_ps": 1.0, "bead_mass_amu": 110.0},
    "we": {"steps_per_segment": 100, "save_every": 50},
    "perturbations": {
        "temperature_110": {"temperature_scale": 1.1},
        "friction_x10": {"friction_scale": 10.0},
        "timestep_half": {"timestep_scale": 0.5},
        "long_segments": {"steps_per_segment": 200},
        "hot_and_slow": {"temperature_scale": 1.2, "friction_scale": 5.0},
    },
    "presets": ["fulltrained"],
}


def test_a_change_of_dynamics_alone_is_dynamics_only_and_a_mixed_one_is_not():
    only = [e for e in engines(STUDY) if is_dynamics_only(STUDY, e)]
    assert only == ["friction_x10", "timestep_half", "long_segments"]
    assert not is_dynamics_only(STUDY, "reference") and not is_dynamics_only(STUDY, "cg_fulltrained")


def test_each_engine_runs_its_own_dynamics_at_its_own_temperature():
    assert engine_langevin(STUDY, "friction_x10")["friction_per_ps"] == 10.0
    assert engine_langevin(STUDY, "timestep_half")["timestep_fs"] == 20.0
    mixed = engine_langevin(STUDY, "hot_and_slow")
    assert mixed["temperature_k"] == pytest.approx(360.0) and mixed["friction_per_ps"] == 5.0
    assert dynamics(STUDY, "long_segments")["steps_per_segment"] == 200
    assert dynamics(STUDY, "reference") == {"friction_scale": 1.0, "timestep_scale": 1.0, "steps_per_segment": 100}
    assert segment_ps(STUDY, "reference") == pytest.approx(4.0) and segment_ps(STUDY, "timestep_half") == 2.0


def test_segments_that_do_not_end_on_a_saved_frame_are_a_config_error_naming_the_fix():
    study = {**STUDY, "perturbations": {"odd": {"steps_per_segment": 120}}}
    with pytest.raises(ConfigError, match="steps_per_segment 120 is not a multiple of calibration.we.save_every 50"):
        dynamics(study, "odd")
