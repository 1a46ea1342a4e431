"""The published failure modes, one held-out-style trial each (and the trials that look like one but are not):
trials built as Harbor leaves them (trajectory, the verifier's checks, the delivered files), scored against the
real tasks' contracts."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.agents.failures.breaches import breach, task_contract
from westbench.agents.failures.modes import computed_checks, instability, trial_modes, unobserved_typed_numbers
from westbench.agents.failures.tables import outcome

from ...conftest import REPO
from ..recorded import recorded_trial

TASK = "we-weighted-rg"  # analysis; its computed items: per-frame Rg, weighted and unweighted statistics
INSTRUCTION = "Compute the weighted mean radius of gyration of /app/inputs/we.h5 at 300 K; write /app/output/."


def _call(step: int, command: str, output: str, *, control: bool = False) -> dict:
    calls = [{"tool_call_id": f"c{step}", "function_name": "bash", "arguments": {"command": command}}]
    if control:
        calls.append({"tool_call_id": f"d{step}", "function_name": "mark_task_complete", "arguments": {}})
    return {
        "step_id": step,
        "source": "agent",
        "message": "",
        "tool_calls": calls,
        "observation": {"results": [{"source_call_id": f"c{step}", "content": output}]},
    }


def _trial(tmp_path, steps, checks, delivered, *, status="failed", correctness=0.0, task=TASK, category="analysis"):
    folder = tmp_path / "harbor"
    (folder / "agent").mkdir(parents=True)
    record = {"steps": [{"step_id": 0, "source": "user", "message": INSTRUCTION}, *steps]}
    (folder / "agent" / "trajectory.json").write_text(json.dumps(record))
    (folder / "verifier").mkdir()
    (folder / "verifier" / "checks.json").write_text(json.dumps({"checks": checks}))
    output = folder / "artifacts" / "app" / "output"
    output.mkdir(parents=True)
    for name, text in delivered.items():
        (output / name).write_text(text)
    trial = {"task": task, "agent": "a", "model": "m", "attempt": 1, "status": status, "correctness": correctness}
    trial |= {"category": category, "trial_dir": str(folder)}
    return trial


def _modes(trial) -> dict:
    task_dir = REPO / "tasks" / trial["task"]
    passed = outcome(trial["status"], trial["correctness"]) == "passed"
    return trial_modes(trial, breach(trial, None, task_contract(task_dir)), computed_checks(task_dir), passed)


FAILED_MEAN = {"name": "weighted mean Rg", "kind": "science", "passed": False, "reason": "0.7 != 0.8216"}
NO_RG = {"name": "rg.csv has header frame,rg_nm", "kind": "format", "passed": False, "reason": "no rg.csv"}
PASSED_FORMAT = {"name": "summary.json readable", "kind": "format", "passed": True, "reason": ""}


def test_an_engine_that_blew_up_is_an_unstable_configuration(tmp_path):
    steps = [
        _call(1, "python run.py", "Traceback (most recent call last):\nopenmm.OpenMMException: Energy is NaN."),
        _call(2, "echo giving up", "giving up", control=True),
    ]
    modes = _modes(_trial(tmp_path, steps, [FAILED_MEAN, NO_RG], {}))
    assert modes["instability"] == "nan" and modes["unstable_configuration"]
    assert modes["premature_abandonment"]  # it also stopped with rg.csv missing: the flags overlap, the mode does not
    assert modes["failure_mode"] == "unstable configuration"


def test_an_instability_that_is_the_tasks_subject_names_no_mode(tmp_path):
    steps = [_call(1, "gmx mdrun -deffnm md", "Step 120: Too many LINCS warnings (2031)\nFatal error: ...")]
    modes = _modes(_trial(tmp_path, steps, [FAILED_MEAN], {}, category="diagnosis"))
    assert modes["instability"] == "lincs" and not modes["unstable_configuration"]
    assert modes["failure_mode"] != "unstable configuration"


def test_an_echoed_command_is_no_instability(tmp_path):
    steps = [_call(1, "grep 'LINCS WARNING' md.log", "root@box:/app# grep 'LINCS WARNING' md.log\nroot@box:/app# ")]
    modes = _modes(_trial(tmp_path, steps, [FAILED_MEAN], {"summary.json": '{"weighted_mean_rg_nm": 0.8}'}))
    assert modes["instability"] == "" and modes["failure_mode"] == "other"


def test_numbers_typed_without_a_computation_are_fabricated(tmp_path):
    _, trial = recorded_trial("claims-and-fails", tmp_path)  # json.dump of literals, never a computation
    modes = _modes(trial)
    assert modes["fabricated_output"] and modes["fabricated_numbers"] == "0.04;0.61;0.62"
    assert modes["failure_mode"] == "fabricated output"


def test_numbers_copied_from_a_computation_are_not_fabricated(tmp_path):
    text = '{"n_frames": 200, "weighted_mean_rg_nm": 0.8216, "weighted_std_rg_nm": 0.24}'
    steps = [
        _call(1, "python3 stats.py", "weighted mean 0.821616 std 0.241291 over 200 frames"),
        _call(2, f"echo '{text}' > /app/output/summary.json", "", control=True),
    ]
    checks = [PASSED_FORMAT, {**FAILED_MEAN, "name": "per-frame Rg matches mdtraj"}]
    modes = _modes(_trial(tmp_path, steps, checks, {"summary.json": text, "rg.csv": "frame,rg_nm\n0,0.8\n"}))
    assert not modes["fabricated_output"] and modes["failure_mode"] == "other"


def test_a_typed_number_on_a_check_that_recomputes_nothing_is_not_fabrication(tmp_path):
    steps = [_call(1, "echo '{\"weighted_mean_rg_nm\": 0.55}' > /app/output/summary.json", "")]
    checks = [{"name": "summary.json readable", "kind": "format", "passed": False, "reason": "bad JSON"}]
    modes = _modes(_trial(tmp_path, steps, checks, {"summary.json": '{"weighted_mean_rg_nm": 0.55}'}))
    assert not modes["fabricated_output"]  # no computed item failed: a format slip, not a number


def test_stopping_with_a_deliverable_missing_is_premature_abandonment(tmp_path):
    steps = [_call(1, "ls /app/inputs", "we.h5"), _call(2, "echo", "", control=True)]
    modes = _modes(_trial(tmp_path, steps, [NO_RG], {}))
    assert modes["premature_abandonment"] and modes["failure_mode"] == "premature abandonment"
    timed_out = _modes(_trial(tmp_path / "t", steps, [NO_RG], {}, status="agent_timeout"))
    assert not timed_out["premature_abandonment"] and timed_out["failure_mode"] == "other"  # it did not stop itself


def test_a_passed_trial_has_no_mode(tmp_path):
    _, trial = recorded_trial("recovers-and-passes", tmp_path)
    assert _modes(trial)["failure_mode"] == ""


@settings(max_examples=200, deadline=None)
@given(
    st.floats(min_value=-1e4, max_value=1e4, allow_nan=False).filter(lambda v: abs(v) > 1e-3),
    st.integers(min_value=1, max_value=6),
)
def test_a_number_shown_is_never_unobserved_at_any_rounding(value, decimals):
    typed = f"{value:.{decimals}f}"
    record = {
        "steps": [
            _call(1, "python3 run.py", f"result: {value!r}"),
            _call(2, f"echo {typed} > /app/output/x.txt", ""),
        ]
    }
    assert float(typed) not in unobserved_typed_numbers(record)


@pytest.mark.parametrize(
    ("message", "name"),
    [
        ("openmm.OpenMMException: Particle coordinate is NaN.  For more information, see https://...", "nan"),
        ("Step 1200: One or more water molecules can not be settled.", "settle"),
        ("Step 30, time 0.06 (ps)  LINCS WARNING\nrelative constraint deviation after LINCS:", "lincs"),
        ("WARNING: 5 particles moved more than 0.63 nm in one step", "moved too far"),
        ("ERROR: Lost atoms: original 4000 current 3998 (src/thermo.cpp:488)", "lost atoms"),
        ("ERROR: Out of range atoms - cannot compute PPPM (src/KSPACE/pppm.cpp:1935)", "lost atoms"),
        ("Step  Temp  E_pair\n  0  1.44  -6.77\n100  0.73  -5.76", None),
    ],
)
def test_each_engines_own_instability_message_is_named(message, name):
    assert instability([message]) == name
