"""The failure analysis's tables: one row per trial, then completion claims, tool errors and breach signatures.

Per trial (:func:`trial_row`, ``failures.csv``): the outcome (``passed``: the agent finished and every
deterministic check passed, MDArena's pass; else ``not passed``), the trajectory's facts
(:func:`westbench.agents.atif.trajectory_facts`: tool results, tool errors, the final message's completion
class, the completion call) and the breach flags and signature (:mod:`~westbench.agents.failures.breaches`).

Summaries per agent and model and outcome, each rate with its Wilson 95 % interval:

* :func:`completion_table`: trials with a trajectory, how their final messages read (claims, hedged,
  limitation, silent, no message), the completion-claim rate (claims and hedged) and the completion-call rate.
* :func:`tool_error_table`: tool results, tool errors, errors per 100 tool results (Wilson over results, which
  treats results as independent: a run's errors cluster, so the interval is a lower bound on the uncertainty),
  trials with any error and of those, trials whose last tool result was not an error (recovered).
* :func:`breach_table`: per task tag (difficulty, category) and value: trials, trials not passed and, among
  those, each flag's count and rate, each signature's count and each failure mode's count
  (:mod:`~westbench.agents.failures.modes`: unstable configuration, fabricated output, premature abandonment).

Examples
--------
>>> rows = pd.DataFrame({"agent": ["a"] * 3, "model": ["m"] * 3, "outcome": ["passed", "not passed", "not passed"],
...                      "trajectory": ["read"] * 3, "completion": ["claims", "claims", "limitation"],
...                      "completion_call": [True, True, False]})
>>> table = completion_table(rows).set_index("outcome")
>>> row = table.loc["not passed"]
>>> int(row["trials"]), int(row["claims"]), float(row["claim_rate"])
(2, 1, 0.5)
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from westbench.agents.completion import CLAIMING, CLASSES
from westbench.agents.failures.breaches import SIGNATURES
from westbench.agents.failures.modes import MODES
from westbench.agents.grading import PASS_TOLERANCE
from westbench.agents.statistics import COMPLETED, wilson_interval

OUTCOMES = ("passed", "not passed")
FLAGS = ("missing_deliverable", "failed_check", "judge_shortfall")
TAGS = ("difficulty", "category")
RUN = ["agent", "model"]


def outcome(status: str | None, correctness) -> str:
    """``passed`` when the agent finished and every deterministic check passed (MDArena's pass), else ``not passed``.

    >>> outcome("passed", 1.0), outcome("agent_timeout", 1.0), outcome("failed", 0.5)
    ('passed', 'not passed', 'not passed')
    """
    finished = status in COMPLETED
    scored = correctness is not None and correctness == correctness and float(correctness) >= 1.0 - PASS_TOLERANCE
    return "passed" if finished and scored else "not passed"


def task_score(status: str | None, correctness) -> float:
    """The trial's deterministic task score in [0, 1]: correctness when the agent finished, else 0 (a timeout,
    an error, a missing trial), as FrontierChallenge scores a crashed submission; the judge is left out, so the
    process scorecards are not correlated with themselves.

    >>> task_score("failed", 0.5), task_score("agent_error", 0.5), task_score("failed", None)
    (0.5, 0.0, 0.0)
    """
    if status not in COMPLETED or correctness is None or correctness != correctness:
        return 0.0
    return float(correctness)


def trial_row(trial: Mapping, facts: Mapping, breach: Mapping) -> dict:
    """One row of ``failures.csv``: the trial's identity, tags, outcome, facts and breach."""
    return {
        **{key: trial.get(key) for key in ("task", "agent", "model", "attempt", "difficulty", "category", "status")},
        "correctness": trial.get("correctness"),
        "outcome": outcome(trial.get("status"), trial.get("correctness")),
        "task_score": task_score(trial.get("status"), trial.get("correctness")),
        **{key: value for key, value in facts.items() if key not in ("tool_error_rules", "final_message")},
        "tool_error_rules": ";".join(f"{rule}={count}" for rule, count in sorted(facts["tool_error_rules"].items())),
        "claims_completion": facts["completion"] in CLAIMING,
        **breach,
    }


def _rate_columns(row: dict, name: str, count: int, total: int, scale: float = 1.0) -> None:
    low, high = wilson_interval(count, total)
    row[name] = scale * count / total if total else np.nan
    row[f"{name}_lo"], row[f"{name}_hi"] = scale * low, scale * high


def _groups(frame: pd.DataFrame, keys: Sequence[str]):
    for key, group in frame.groupby(list(keys), sort=True, dropna=False):
        yield dict(zip(keys, key if isinstance(key, tuple) else (key,))), group


def completion_table(failures: pd.DataFrame) -> pd.DataFrame:
    """Completion language by agent, model and outcome (module docstring); trials without a trajectory left out."""
    read = failures[failures["trajectory"] == "read"]
    rows = []
    for keys, group in _groups(read, [*RUN, "outcome"]):
        row = {**keys, "trials": len(group)}
        for name in CLASSES:
            row[name.replace(" ", "_")] = int((group["completion"] == name).sum())
        _rate_columns(row, "claim_rate", int(group["completion"].isin(CLAIMING).sum()), len(group))
        _rate_columns(
            row, "completion_call_rate", int(group["completion_call"].fillna(False).astype(bool).sum()), len(group)
        )
        rows.append(row)
    return pd.DataFrame(rows, columns=[*RUN, "outcome", "trials"] if not rows else None)


def tool_error_table(failures: pd.DataFrame) -> pd.DataFrame:
    """Tool errors per 100 tool results by agent, model and outcome (module docstring)."""
    read = failures[failures["trajectory"] == "read"]
    rows = []
    for keys, group in _groups(read, [*RUN, "outcome"]):
        results = int(pd.to_numeric(group["tool_results"], errors="coerce").fillna(0).sum())
        errors = int(pd.to_numeric(group["tool_errors"], errors="coerce").fillna(0).sum())
        with_error = group[pd.to_numeric(group["tool_errors"], errors="coerce").fillna(0) > 0]
        row = {**keys, "trials": len(group), "tool_results": results, "tool_errors": errors}
        _rate_columns(row, "errors_per_100_results", errors, results, scale=100.0)
        row["trials_with_error"] = len(with_error)
        row["recovered"] = int((with_error["last_tool_result_error"] == False).sum())  # noqa: E712 (None stays out)
        rows.append(row)
    return pd.DataFrame(rows, columns=[*RUN, "outcome", "trials"] if not rows else None)


def breach_table(failures: pd.DataFrame, tags: Sequence[str] = TAGS) -> pd.DataFrame:
    """Breach flags and signatures among trials not passed, by agent, model, tag and value (module docstring)."""
    rows = []
    for tag in tags:
        if tag not in failures:
            continue
        frame = failures.assign(tag=tag, value=failures[tag].fillna("untagged").astype(str))
        for keys, group in _groups(frame, [*RUN, "tag", "value"]):
            failed = group[group["outcome"] == "not passed"]
            row = {**keys, "trials": len(group), "not_passed": len(failed)}
            for flag in FLAGS:
                known = failed[flag].dropna() if flag in failed else pd.Series(dtype=object)
                count = int(known.astype(bool).sum())
                row[flag] = count
                _rate_columns(row, f"{flag}_rate", count, len(known))
            row["judged_not_passed"] = (
                int(failed["judge_shortfall"].notna().sum()) if "judge_shortfall" in failed else 0
            )
            for name in SIGNATURES:
                row[f"signature_{name.replace(' ', '_')}"] = int((failed["signature"] == name).sum())
            for name in MODES:
                modes = failed["failure_mode"] if "failure_mode" in failed else pd.Series(dtype=object)
                row[f"mode_{name.replace(' ', '_')}"] = int((modes == name).sum())
            rows.append(row)
    return pd.DataFrame(rows, columns=[*RUN, "tag", "value", "trials", "not_passed"] if not rows else None)
