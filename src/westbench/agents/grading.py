"""Status and score of one trial, kept apart, from Harbor's ``result.json``.

Status is one of :data:`STATUSES`; the score is the verifier's correctness (the fraction of
deterministic checks passed), kept even when an agent timed out (Harbor still verifies then).
A trial without a reward scores 0 and says why.

Examples
--------
>>> grade({"verifier_result": {"rewards": {"correctness": 1.0}}, "exception_info": None})["status"]
'passed'
>>> record = grade({"verifier_result": {"rewards": {"correctness": 0.5}},
...                 "exception_info": {"exception_type": "AgentTimeoutError", "exception_message": "900 s"}})
>>> record["status"], record["correctness"]
('agent_timeout', 0.5)
>>> grade(None, reason="harbor exited 1")["status"]
'environment_error'
"""

from __future__ import annotations

import math
from typing import Mapping

STATUSES = ("passed", "failed", "agent_timeout", "agent_error", "environment_error", "verifier_error")
PASS_TOLERANCE = 1e-9

# Harbor 0.26 exception names (result.json exception_info.exception_type).
EXCEPTION_STATUS = {
    "AgentTimeoutError": "agent_timeout",
    "AgentSetupTimeoutError": "agent_error",
    "NonZeroAgentExitCodeError": "agent_error",
    "AgentError": "agent_error",
    "VerifierTimeoutError": "verifier_error",
    "RewardFileNotFoundError": "verifier_error",
    "RewardFileEmptyError": "verifier_error",
    "VerifierOutputParseError": "verifier_error",
    "AddTestsDirError": "verifier_error",
    "DownloadVerifierDirError": "verifier_error",
    "EnvironmentStartTimeoutError": "environment_error",
}


def status_of_exception(name: str) -> str:
    """Map a Harbor exception name to a status; unknown names by their wording.

    >>> names = ("AgentTimeoutError", "SomeVerifierCrash", "DockerDown")
    >>> tuple(status_of_exception(name) for name in names)
    ('agent_timeout', 'verifier_error', 'environment_error')
    """
    if name in EXCEPTION_STATUS:
        return EXCEPTION_STATUS[name]
    lowered = name.lower()
    if "timeout" in lowered and "agent" in lowered:
        return "agent_timeout"
    if "agent" in lowered:
        return "agent_error"
    if "verifier" in lowered or "reward" in lowered:
        return "verifier_error"
    return "environment_error"


def correctness_of(rewards: Mapping | None) -> float | None:
    """The correctness among Harbor's rewards: ``correctness``, else ``reward``, else a single value.

    >>> correctness_of({"correctness": 0.25, "checks_total": 4}), correctness_of({"reward": 1}), correctness_of({})
    (0.25, 1.0, None)
    """
    if not rewards:
        return None
    for key in ("correctness", "reward"):
        if key in rewards:
            return _unit_interval(rewards[key])
    if len(rewards) == 1:
        return _unit_interval(next(iter(rewards.values())))
    return None


def _unit_interval(value) -> float | None:
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return min(max(value, 0.0), 1.0) if math.isfinite(value) else None


def grade(result: Mapping | None, reason: str = "") -> dict:
    """The graded record of a trial: status, reason, correctness (0 when missing), rewards, usage, timings."""
    if result is None:
        return {
            "status": "environment_error",
            "reason": reason or "Harbor wrote no result.json",
            "correctness": 0.0,
            "rewards": {},
            "tokens_in": None,
            "tokens_out": None,
            "cost_usd": None,
            "timings": {},
        }
    rewards = (result.get("verifier_result") or {}).get("rewards") or {}
    correctness = correctness_of(rewards)
    exception = result.get("exception_info") or None
    if exception:
        name = exception.get("exception_type", "UnknownError")
        status = status_of_exception(name)
        reason = f"{name}: {exception.get('exception_message', '')}".strip()
    elif correctness is None:
        status = "verifier_error"
        reason = f"the verifier wrote no usable correctness (rewards {dict(rewards)})"
    else:
        status = "passed" if correctness >= 1.0 - PASS_TOLERANCE else "failed"
        reason = (
            ""
            if status == "passed"
            else (
                f"{rewards['checks_passed']}/{rewards['checks_total']} checks passed"
                if "checks_total" in rewards
                else f"the verifier scored {correctness:g}"
            )
        )
    agent = result.get("agent_result") or {}
    return {
        "status": status,
        "reason": reason,
        "correctness": correctness if correctness is not None else 0.0,
        "rewards": dict(rewards),
        "tokens_in": agent.get("n_input_tokens"),
        "tokens_out": agent.get("n_output_tokens"),
        "cost_usd": agent.get("cost_usd"),
        "timings": phase_seconds(result),
        "verifier_mode": result.get("verifier_environment_mode"),
    }


def phase_seconds(result: Mapping) -> dict:
    """Seconds of each phase Harbor timed (environment_setup, agent_setup, agent_execution, verifier, total)."""
    from datetime import datetime

    def seconds(block) -> float | None:
        if not block or not block.get("started_at") or not block.get("finished_at"):
            return None
        start, end = (datetime.fromisoformat(block[k].replace("Z", "+00:00")) for k in ("started_at", "finished_at"))
        return round((end - start).total_seconds(), 3)

    phases = {
        name: seconds(result.get(name)) for name in ("environment_setup", "agent_setup", "agent_execution", "verifier")
    }
    phases["total"] = seconds(result)
    return phases
