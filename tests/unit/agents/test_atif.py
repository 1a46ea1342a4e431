"""Harbor's trajectory (ATIF) read deterministically: tool results, tool errors by the stated rules, final message."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.agents.atif import (
    CONTROL_CALLS,
    ERROR_SIGNATURES,
    final_message,
    read_trajectory,
    result_error,
    tool_results,
    trajectory_facts,
)

from .recorded import FIXTURES


def step(step_id, message="", calls=(), results=(), source="agent"):
    record = {"step_id": step_id, "source": source, "message": message}
    if calls:
        record["tool_calls"] = [
            {"tool_call_id": cid, "function_name": name, "arguments": {}, **({"extra": extra} if extra else {})}
            for cid, name, extra in calls
        ]
    if results:
        record["observation"] = {"results": list(results)}
    return record


def test_the_trial_that_claims_completion_and_fails_has_no_tool_error_and_claims():
    facts = trajectory_facts(FIXTURES / "claims-and-fails" / "harbor")
    assert facts["trajectory"] == "read" and facts["tool_results"] == 1 and facts["tool_errors"] == 0
    assert facts["completion"] == "claims" and facts["completion_call"] is True
    assert "the task is complete" in facts["final_message"]


def test_the_trial_that_recovers_has_two_tool_errors_and_its_last_result_is_not_one():
    facts = trajectory_facts(FIXTURES / "recovers-and-passes" / "harbor")
    assert facts["tool_results"] == 5 and facts["tool_errors"] == 2, facts
    assert facts["tool_error_rules"] == {"text: traceback": 1, "text: no such file": 1}
    assert facts["last_tool_result_error"] is False and facts["completion"] == "claims"
    record, _ = read_trajectory(FIXTURES / "recovers-and-passes" / "harbor")
    assert [r.error for r in tool_results(record)] == [True, False, True, False, False]


def test_a_trajectory_that_is_absent_a_link_or_not_json_is_said_so(tmp_path):
    assert trajectory_facts(tmp_path)["trajectory"] == "absent"
    assert trajectory_facts(None)["completion"] == "no trajectory"
    (tmp_path / "agent").mkdir()
    (tmp_path / "outside.json").write_text(json.dumps({"steps": [step(1, "done: the task is complete")]}))
    (tmp_path / "agent" / "trajectory.json").symlink_to(tmp_path / "outside.json")
    facts = trajectory_facts(tmp_path)
    assert facts["trajectory"].endswith("symbolic link: not followed") and facts["tool_results"] is None
    (tmp_path / "agent" / "trajectory.json").unlink()
    (tmp_path / "agent" / "trajectory.json").write_text("{not json")
    assert "not JSON" in trajectory_facts(tmp_path)["trajectory"]


def test_continuations_and_subagents_are_joined(tmp_path):
    (tmp_path / "agent").mkdir()
    sub = {
        "trajectory_id": "s",
        "steps": [step(1, "", [("s1", "bash", None)], [{"source_call_id": "s1", "content": "Killed"}])],
    }
    first = {
        "steps": [step(1, "go", [("c1", "bash", None)], [{"source_call_id": "c1", "content": "ok"}])],
        "continued_trajectory_ref": "trajectory.cont-1.json",
        "subagent_trajectories": [sub],
    }
    second = {"steps": [step(1, "All deliverables are written.", [("c2", "bash", None)], [{"content": "ok"}])]}
    (tmp_path / "agent" / "trajectory.json").write_text(json.dumps(first))
    (tmp_path / "agent" / "trajectory.cont-1.json").write_text(json.dumps(second))
    facts = trajectory_facts(tmp_path)
    assert facts["tool_results"] == 3 and facts["tool_errors"] == 1 and facts["completion"] == "claims"


@pytest.mark.parametrize(
    "extra, text, error",
    [
        ({"is_error": True}, "fine", True),
        ({"tool_result_is_error": False}, "Traceback (most recent call last):", False),
        ({"exit_code": 2}, "", True),
        ({"returncode": 0}, "ERROR: shown but the run says it succeeded", False),
        ({"status": "failed"}, "", True),
        ({"status": "completed"}, "command not found", False),
        ({"error": "timeout"}, "", True),
        (None, "bash: gmx_mpi: command not found", True),
        (None, "Fatal error:\nNo such moleculetype SOL", True),
        (None, "subprocess.CalledProcessError: Command returned non-zero exit status 1.", True),
        (None, "Wrote 200 frames; 0 errors found", False),
        (None, "grep -c error log.txt\n0", False),
    ],
)
def test_structured_flags_decide_before_the_text(extra, text, error):
    record = {"steps": [step(1, "", [("c", "bash", None)], [{"source_call_id": "c", "content": text, "extra": extra}])]}
    assert tool_results(record)[0].error is error


def test_a_flag_on_the_call_counts_and_control_calls_are_not_tool_runs():
    record = {
        "steps": [
            step(1, "", [("c", "Bash", {"tool_use_is_error": True})], [{"source_call_id": "c", "content": "x"}]),
            step(2, "Done.", [("d", "mark_task_complete", None)], [{"content": "Are you sure? Error: none"}]),
            step(
                3, "", [("e", "bash", None), ("f", "task_complete", None)], [{"source_call_id": "f", "content": "E: x"}]
            ),
        ]
    }
    results = tool_results(record)
    assert [(r.step_id, r.error) for r in results] == [(1, True)]
    assert {"mark_task_complete", "task_complete"} <= CONTROL_CALLS


def test_the_final_message_is_the_last_agent_text_and_multimodal_text_counts():
    record = {
        "steps": [
            step(1, "first"),
            step(2, [{"type": "text", "text": "second"}]),
            step(3, ""),
            step(4, "u", source="user"),
        ]
    }
    assert final_message(record) == "second"


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(
        st.sampled_from(["ValueError: bad", "Traceback (most recent call last):", "ok", "$ ls", "Killed"]), max_size=6
    ),
    repeats=st.integers(1, 4),
)
def test_a_screen_captured_again_never_adds_errors(lines, repeats):
    """The property behind rule 2: showing the same output again (a terminal re-captured) counts no new error."""
    seen = set()
    text = "\n".join(lines)
    first, _ = result_error(text, [None], seen)
    again = [result_error(text, [None], seen)[0] for _ in range(repeats)]
    assert not any(again)
    assert first == any(p.search(line) for line in lines for _, p in ERROR_SIGNATURES)
