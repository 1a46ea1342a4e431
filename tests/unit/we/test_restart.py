"""A WE run folder resumes or starts over (westbench.we.restart)."""

import h5py

from westbench.we.restart import RUN_STATE, completed_iterations, is_initialized, reset_if_inputs_changed


def test_a_file_w_init_did_not_finish_is_not_initialized(tmp_path):
    west_h5 = tmp_path / "west.h5"
    assert not is_initialized(west_h5) and completed_iterations(west_h5) == 0
    with h5py.File(west_h5, "w") as handle:
        handle.create_group("iterations")
    assert not is_initialized(west_h5) and completed_iterations(west_h5) == 0


def test_changed_settings_clear_the_run_state_and_keep_outputs(tmp_path):
    reset_if_inputs_changed(tmp_path, {"seed": 1})
    for name in ("west.h5", "west.cfg", "summary.json"):
        (tmp_path / name).write_text("x")
    assert reset_if_inputs_changed(tmp_path, {"seed": 1}) == []
    assert reset_if_inputs_changed(tmp_path, {"seed": 2}) == ["seed"]
    assert not any((tmp_path / name).exists() for name in RUN_STATE if name != "inputs.sha256")
    assert (tmp_path / "summary.json").exists()  # an output, kept
