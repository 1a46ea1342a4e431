"""The generated west.cfg carries an analysis section: WESTPA's w_ipa runs on a westbench WE run."""

import os
import subprocess
import sys

import h5py
import pytest

from westbench.we.run import run_we

from ...conftest import REPO
from .test_we_toy import CFG

pytestmark = pytest.mark.slow


def test_w_ipa_analyses_a_short_toy_run(tmp_path):
    run_dir = tmp_path / "toy"
    run_we(run_dir, cfg=CFG, segs_per_state=2, max_iterations=4)
    env = {
        **os.environ,
        "WEST_SIM_ROOT": str(run_dir),
        "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    result = subprocess.run(
        [sys.executable, "-m", "westpa.cli.tools.w_ipa", "-r", str(run_dir / "west.cfg"), "--analysis-only"],
        cwd=run_dir,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    scheme = run_dir / "ANALYSIS" / "tic0_halves"
    with h5py.File(scheme / "assign.h5", "r") as handle:
        assert [label.decode() for label in handle["state_labels"][()]] == ["tic0_low", "tic0_high"]
        assert handle["assignments"].shape[0] == 4  # one row per iteration
    assert (scheme / "direct.h5").is_file()
