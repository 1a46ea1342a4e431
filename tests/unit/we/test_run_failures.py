"""A crashed engine fails the run (the engine's message, WESTPA's traceback in the log); an ended walker is data."""

import logging

import numpy as np
import pytest

from westbench.we.restart import completed_iterations
from westbench.we.run import WERunError, run_we

pytestmark = pytest.mark.slow

CFG = {
    "pcoord": {"type": "position", "ndim": 2},
    "seed": 9,
    "bins_per_dim": 7,
    "walkers_per_bin": 3,
    "steps_per_segment": 50,
    "save_every": 10,
}


def engine(name, **options):
    return {**CFG, "engine": {"class": f"tests.unit.we.toy:{name}", "options": {"dt": 2e-3, **options}}}


@pytest.mark.parametrize("work_manager", ["serial", "processes"])
def test_an_engine_that_raises_ends_the_run_with_its_message_and_traceback(work_manager, tmp_path, caplog):
    # Three initial walkers: iteration 1 takes three calls (per process), iteration 2 fails.
    with caplog.at_level(logging.INFO), pytest.raises(WERunError) as error:
        run_we(
            tmp_path,
            cfg=engine("RaisingDoubleWell", fail_after=3),
            segs_per_state=3,
            max_iterations=4,
            work_manager=work_manager,
            n_workers=2,
        )
    message = str(error.value)
    assert "FloatingPointError: toy engine crashed" in message and str(tmp_path) in message
    assert "rerun" in message
    assert "Traceback" in caplog.text and "raise FloatingPointError" in caplog.text  # the engine's own frame
    assert 1 <= completed_iterations(tmp_path / "west.h5") < 4  # what finished is kept for the rerun


def test_a_segment_store_that_cannot_write_fails_the_run(tmp_path):
    run_we(tmp_path, cfg=engine("DoubleWell"), segs_per_state=2, max_iterations=1)
    (tmp_path / "segments" / "iter_000002").write_text("a file where the store wants its folder")
    with pytest.raises(WERunError, match="FileExistsError"):
        run_we(tmp_path, cfg=engine("DoubleWell"), segs_per_state=2, max_iterations=3)
    assert completed_iterations(tmp_path / "west.h5") == 1


def test_ended_walkers_are_data_and_the_run_goes_on(tmp_path):
    from westbench.io.frames import read_frames
    from westbench.we.export import export_run

    summary = run_we(
        tmp_path / "run", cfg=engine("ExplodingDoubleWell", limit=-0.9), segs_per_state=3, max_iterations=4
    )
    assert summary["iterations"] == 4 and summary["stopped_because"] == "max_iterations"
    export_run(tmp_path / "run", tmp_path / "frames.h5", tmp_path / "cost.csv", save_interval_ps=0.02)
    frames = read_frames(tmp_path / "frames.h5")
    assert (frames["ok"] == 0).any() and np.isfinite(frames["ca"]).all()
    assert frames.attrs["ended_nonfinite_frames_dropped"] > 0  # the explosion itself is no sample


def test_a_run_that_makes_no_progress_is_an_error(tmp_path, monkeypatch):
    from westpa.cli.core import w_run

    run_we(tmp_path, cfg=engine("DoubleWell"), segs_per_state=2, max_iterations=1)
    monkeypatch.setattr(w_run, "run_simulation", lambda: None)  # WESTPA returns without running an iteration
    with pytest.raises(WERunError, match="made no progress"):
        run_we(tmp_path, cfg=engine("DoubleWell"), segs_per_state=2, max_iterations=3)
    summary = run_we(tmp_path, cfg=engine("DoubleWell"), segs_per_state=2, max_iterations=3, max_wallclock_s=1e-6)
    assert summary["stopped_because"] == "wallclock"  # a wallclock stop is no error


def test_frames_an_engine_returns_as_ok_with_nan_are_refused_at_export_or_dropped(tmp_path):
    from westbench.errors import WestbenchError
    from westbench.io.frames import read_frames
    from westbench.we.export import export_run

    run_we(
        tmp_path / "run", cfg=engine("ExplodingDoubleWell", limit=-0.9, status="ok"), segs_per_state=3, max_iterations=2
    )
    with pytest.raises(
        WestbenchError,
        match=r"iteration \d+ segment \d+ frame 5 has coordinate nan nm at "
        r"C-alpha 0 .*status ok.*on_nonfinite: drop",
    ):
        export_run(tmp_path / "run", tmp_path / "frames.h5", tmp_path / "cost.csv", save_interval_ps=0.02)
    assert not (tmp_path / "frames.h5").exists()
    summary = export_run(
        tmp_path / "run", tmp_path / "frames.h5", tmp_path / "cost.csv", save_interval_ps=0.02, on_nonfinite="drop"
    )
    frames = read_frames(tmp_path / "frames.h5")
    assert summary["nonfinite_frames_dropped"] == frames.attrs["nonfinite_frames_dropped"] > 0
    assert np.isfinite(frames["ca"]).all() and frames.attrs["ended_nonfinite_frames_dropped"] == 0
