"""The verifier helper always leaves a reward, and a per-check detail file."""

import json
import subprocess
import sys

from westbench.agents import verifykit

from ...conftest import REPO


def test_failed_checks_lower_correctness_with_reasons(tmp_path):
    checks = verifykit.Checks(str(tmp_path))
    with checks.check("ok"):
        pass
    with checks.check("bad"):
        assert 1 == 2, "one is not two"
    checks.require("flag", False, "flag not set")
    reward = checks.finish()
    assert reward == {"correctness": round(1 / 3, 6), "checks_passed": 1, "checks_total": 3}
    detail = json.loads((tmp_path / "checks.json").read_text())
    reasons = [c["reason"] for c in detail["checks"]]
    assert reasons[0] == "" and reasons[1].startswith("AssertionError: one is not two") and reasons[2] == "flag not set"
    assert json.loads((tmp_path / "reward.json").read_text()) == reward


def test_a_crashing_verifier_scores_zero_with_the_reason(tmp_path):
    def verify(checks):
        with checks.check("fine"):
            pass
        raise SystemExit("interpreter gone")

    assert verifykit.main(verify, str(tmp_path)) == 1
    assert json.loads((tmp_path / "reward.json").read_text())["correctness"] == 0.0
    assert "SystemExit: interpreter gone" in json.loads((tmp_path / "checks.json").read_text())["error"]


def test_a_task_verifier_scores_zero_on_empty_deliverables(tmp_path):
    """A real task verifier run outside a container: no deliverables, every check fails, a reward is written."""
    tests = REPO / "tasks" / "refuse-unstable-timestep" / "tests"
    run = subprocess.run([sys.executable, "verify.py"], cwd=tests, capture_output=True, text=True, timeout=60,
                         env={"WESTBENCH_VERIFIER_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert (tmp_path / "reward.json").is_file(), run.stderr[-2000:]
    reward = json.loads((tmp_path / "reward.json").read_text())
    assert reward["correctness"] == 0.0 and reward["checks_total"] == 5
