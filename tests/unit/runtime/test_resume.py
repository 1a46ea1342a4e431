"""The one restart rule of run folders: same settings and file contents resume, wherever the folder is."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from westbench.runtime.resume import RECORD, reset_if_settings_changed, run_identity

from ...conftest import REPO, source_env


def test_a_moved_folder_with_the_same_contents_resumes_and_a_changed_input_starts_over(tmp_path):
    inputs, run = tmp_path / "a" / "inputs", tmp_path / "a" / "run"
    inputs.mkdir(parents=True)
    (inputs / "model.npz").write_bytes(b"weights v1")
    settings = lambda root: {"seed": 1, "model": str(root / "inputs" / "model"), "engine": {"steps": 10}}  # noqa: E731
    assert reset_if_settings_changed(run, settings(tmp_path / "a")) == []
    (run / "state.chk").write_bytes(b"checkpoint")
    record = json.loads((run / RECORD).read_text())
    assert record["model"]["file"] == "model" and "sha256.npz" in record["model"]  # the content, not the path

    shutil.move(tmp_path / "a", tmp_path / "b")
    assert reset_if_settings_changed(tmp_path / "b" / "run", settings(tmp_path / "b")) == []
    assert (tmp_path / "b" / "run" / "state.chk").exists()

    (tmp_path / "b" / "inputs" / "model.npz").write_bytes(b"weights v2")  # retrained
    changed = reset_if_settings_changed(tmp_path / "b" / "run", settings(tmp_path / "b"))
    assert changed == ["model"] and not (tmp_path / "b" / "run" / "state.chk").exists()


def test_clear_removes_only_the_run_state_and_nested_keys_are_named(tmp_path):
    reset_if_settings_changed(tmp_path, {"engine": {"options": {"dt": 1}}})
    for name in ("west.h5", "run.json"):
        (tmp_path / name).write_text("x")
    changed = reset_if_settings_changed(tmp_path, {"engine": {"options": {"dt": 2}}}, clear=["west.h5"])
    assert changed == ["engine.options.dt"]
    assert not (tmp_path / "west.h5").exists() and (tmp_path / "run.json").exists()
    (tmp_path / RECORD).write_text("{not json")
    assert reset_if_settings_changed(tmp_path, {"engine": {"options": {"dt": 2}}})  # unreadable: starts over


def test_identity_ignores_where_files_are_but_not_what_they_hold(tmp_path):
    (tmp_path / "x.xml").write_text("<System/>")
    (tmp_path / "link").symlink_to(tmp_path)  # another path to the same file
    assert run_identity({"a": str(tmp_path / "x.xml")}) == run_identity({"a": str(tmp_path / "link" / "x.xml")})
    assert run_identity({"a": "/gone/x.xml"}) == {"a": "x.xml"}  # a file that is not there counts by name
    assert run_identity({"a": "CPU", "b": [1, 2.5, None]}) == {"a": "CPU", "b": [1, 2.5, None]}


@pytest.mark.slow
def test_killed_we_run_moved_elsewhere_resumes_where_it_stopped(tmp_path, caplog):
    """SIGKILL a WE run mid-iteration, move its folder and its input file (the coverage reference, named by
    absolute path as a TICA model is), rerun there: it resumes and equals the uninterrupted run."""
    from westbench.io.frames import write_frames
    from westbench.we.restart import completed_iterations
    from westbench.we.run import run_we

    from ..we.test_we_toy import assert_same_run, pcoords_and_weights

    def cfg(root):
        return {
            "engine": {"class": "tests.unit.we.toy:SlowDoubleWell", "options": {"barrier": 2.0, "dt": 2e-3}},
            "pcoord": {"type": "position", "ndim": 2},
            "seed": 9,
            "bins_per_dim": 7,
            "walkers_per_bin": 3,
            "steps_per_segment": 100,
            "save_every": 10,
            "coverage": {"reference": str(root / "reference.h5"), "bins": 10},
        }

    for root in (tmp_path / "reference", tmp_path / "here"):
        root.mkdir()
        tics = np.random.default_rng(1).normal(size=(200, 2)).astype(np.float32)
        write_frames(root / "reference.h5", ca=np.zeros((200, 1, 3)), time_ps=np.arange(200.0), tics=tics)
    run_we(tmp_path / "reference" / "run", cfg=cfg(tmp_path / "reference"), segs_per_state=3, max_iterations=8)

    here = tmp_path / "here"
    script = (
        "from westbench.we.run import run_we\nfrom pathlib import Path\n"
        "run_we(%r, cfg=%r, segs_per_state=3, max_iterations=8)\n" % (str(here / "run"), cfg(here))
    )
    process = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=REPO,
        env=source_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while not any((here / "run" / "segments").glob("iter_000004/seg_*.npz")):
        assert process.poll() is None, process.stderr.read()[-3000:]
        assert time.monotonic() < deadline
        time.sleep(0.02)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    stopped_at = completed_iterations(here / "run" / "west.h5")
    assert 3 <= stopped_at < 8

    there = tmp_path / "moved" / "there"
    shutil.move(here, there)
    with caplog.at_level("INFO", logger="westbench.we.run"):
        summary = run_we(there / "run", cfg=cfg(there), segs_per_state=3, max_iterations=8)
    assert f"{stopped_at} complete iterations" in caplog.text and "starting over" not in caplog.text
    assert summary["iterations"] == 8
    assert_same_run(
        pcoords_and_weights(there / "run" / "west.h5"), pcoords_and_weights(tmp_path / "reference" / "run" / "west.h5")
    )
