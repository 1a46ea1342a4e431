"""The prepared GPU call (benchmarks/gpu_session.sh) as a dry run on the CPU platform, so the first call on a
lent GPU cannot fail on a typo: every stage runs, writes its results to $OUT, and records what actually ran.

Not in the fast lane (about two minutes on two cores: a stand-in bundle, then every benchmark stage at tiny
sizes); CI runs it with the workflow tests."""

import json
import os
import subprocess

import pytest

from ..conftest import REPO

pytestmark = [pytest.mark.workflow, pytest.mark.slow]


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    out, bundle = tmp_path_factory.mktemp("gpu_session_out"), tmp_path_factory.mktemp("gpu_bundle") / "bundle"
    env = {**os.environ, "OUT": str(out), "WESTBENCH_GPU_BUNDLE": str(bundle), "WESTBENCH_GPU_DRY_RUN": "1"}
    env.pop("PYTHONPATH", None)  # the script sets its own
    result = subprocess.run(
        ["bash", str(REPO / "benchmarks" / "gpu_session.sh")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    stages = [json.loads(line) for line in (out / "stages.jsonl").read_text().splitlines()]
    return out, {s["stage"]: s for s in stages}


def test_every_stage_runs_within_its_limit(session):
    out, stages = session
    assert list(stages) == ["env", "plugin", "bundle", "gpu_check", "throughput_openmm", "throughput_cg", "processes"]
    assert sum(s["limit_s"] for s in stages.values() if s["stage"] != "bundle") <= 480  # the device call's 8 minutes
    # gpu_check exits 1 on the CPU: `passed` requires CUDA-graph capture, which a CPU run cannot have.
    assert {name: s["rc"] for name, s in stages.items()} == {**{name: 0 for name in stages}, "gpu_check": 1}
    for name in stages:
        assert (out / f"{name}.log").is_file()


def test_plugin_stage_records_the_platform_and_bundle(session):
    out, _ = session
    plugin = json.loads((out / "plugin.json").read_text())
    assert plugin["used"] == "CPU" and plugin["context"]["platform"] == "CPU"
    assert json.loads((out / "bundle.json").read_text())["stand_in"] is True


def test_gpu_check_ran_every_check_and_says_why_it_did_not_pass(session):
    out, _ = session
    check = json.loads((out / "we_gpu_check.json").read_text())
    assert "error" not in check["openmm"] and "error" not in check["cg"], check
    assert check["openmm"]["passed"] and check["openmm"]["max_rms_relative_force_error"] < 1e-3
    assert check["openmm"]["runtime"]["platforms"] == ["CPU"]
    assert set(check["openmm"]["reinitialize"]) == {"copies", "single"}
    assert check["cg"]["capture_used"] is False and check["passed"] is False
    assert check["cg"]["bitwise_repeat_captured"] is True and check["cg"]["same_status"]


def test_throughput_stages_record_steady_rates_and_what_ran(session):
    out, _ = session
    openmm_run = json.loads((out / "we_throughput_openmm.json").read_text())
    cg_run = json.loads((out / "we_throughput_cg.json").read_text())
    processes = json.loads((out / "we_throughput_processes.json").read_text())
    for run in (openmm_run["implicit"]["run_we"], cg_run["cg_run_we"], processes["implicit_processes_run_we"]):
        assert run["steady_segments_per_hour"] > 0 and run["engines_used"]
    assert {r["platforms"][0] for r in openmm_run["implicit"]["run_we"]["engines_used"]} == {"CPU"}
    assert cg_run["cg_published_architecture"]["force_call"] == "eager"
    assert cg_run["cg_run_we"]["engines_used"][0]["device"] == "cpu"
    assert processes["implicit_processes_run_we"]["work_manager"] == "processes"
    assert processes["implicit_processes_run_we"]["workers"] == 2
