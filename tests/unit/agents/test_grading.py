"""Status and score of trials from Harbor result.json shapes."""

import pytest

from westbench.agents.grading import STATUSES, grade, phase_seconds


def result(rewards=None, exception=None, **extra):
    return {
        "verifier_result": {"rewards": rewards} if rewards is not None else None,
        "exception_info": {"exception_type": exception, "exception_message": "details"} if exception else None,
        **extra,
    }


@pytest.mark.parametrize(
    ("exception", "status"),
    [
        ("AgentTimeoutError", "agent_timeout"),
        ("NonZeroAgentExitCodeError", "agent_error"),
        ("VerifierTimeoutError", "verifier_error"),
        ("RewardFileNotFoundError", "verifier_error"),
        ("EnvironmentStartTimeoutError", "environment_error"),
        ("RuntimeError", "environment_error"),
    ],
)
def test_exceptions_map_to_statuses(exception, status):
    record = grade(result(None, exception))
    assert record["status"] == status and record["correctness"] == 0.0 and exception in record["reason"]


def test_score_is_kept_apart_from_the_status_after_an_agent_timeout():
    record = grade(result({"correctness": 0.75}, "AgentTimeoutError"))
    assert (record["status"], record["correctness"]) == ("agent_timeout", 0.75)


def test_passed_only_at_full_correctness():
    assert grade(result({"correctness": 1.0}))["status"] == "passed"
    failed = grade(result({"correctness": 0.9, "checks_passed": 9, "checks_total": 10}))
    assert failed["status"] == "failed" and failed["reason"] == "9/10 checks passed"


def test_foreign_reward_txt_and_missing_correctness():
    assert grade(result({"reward": 1.0}))["correctness"] == 1.0
    record = grade(result({"accuracy": 0.5, "speed": 3.0}))
    assert record["status"] == "verifier_error" and record["correctness"] == 0.0
    assert grade(result({}))["status"] == "verifier_error"


def test_missing_result_is_an_environment_error_with_the_reason():
    record = grade(None, reason="Harbor exited 2")
    assert record["status"] == "environment_error" and record["reason"] == "Harbor exited 2"
    assert set(STATUSES) >= {record["status"]}


def test_usage_and_phase_timings():
    record = grade(
        result(
            {"correctness": 1.0},
            agent_result={"n_input_tokens": 10, "n_output_tokens": 5, "cost_usd": 0.01},
            started_at="2026-01-01T00:00:00Z",
            finished_at="2026-01-01T00:00:09.5Z",
            agent_execution={"started_at": "2026-01-01T00:00:02Z", "finished_at": "2026-01-01T00:00:05Z"},
        )
    )
    assert (record["tokens_in"], record["tokens_out"], record["cost_usd"]) == (10, 5, 0.01)
    assert record["timings"]["total"] == 9.5 and record["timings"]["agent_execution"] == 3.0
    assert phase_seconds({})["verifier"] is None
