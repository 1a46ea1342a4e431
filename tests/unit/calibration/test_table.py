"""The study's job: each engine's kind in the table and its sampling memory in ``calibration.json`` (the whole job
on a finished run: tests/workflow/test_calibration.py)."""

import pytest

from westbench.calibration.table import engine_kind, sampling_memory


@pytest.mark.parametrize(
    "engine, has_answer, kind",
    [
        ("reference", True, "null"),
        ("friction_x10", True, "dynamics"),
        ("temperature_110", True, "perturbation"),
        ("cg_fulltrained", False, "trained"),
        ("my_engine", False, "user"),
    ],
)
def test_each_engine_has_the_kind_of_its_known_answer(engine, has_answer, kind):
    trained = {"cg_fulltrained": "results/calibration/chignolin/cg/fulltrained/training.json"}
    assert engine_kind(engine, has_answer, "reference", ["friction_x10"], trained) == kind


def test_the_sampling_memory_is_in_ps_only_with_the_engines_segment():
    record = {"resampling": {"model_memory_iterations": 3}}
    assert sampling_memory(record, 0.4) == {"iterations": 3, "ps": 1.2}
    assert sampling_memory(record, None) == {"iterations": 3, "ps": None}
    assert sampling_memory({}, 0.4) == {"iterations": None, "ps": None}
