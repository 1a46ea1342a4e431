"""The oracle gate: a task counts only when its reference solution scores 1, the do-nothing agent 0, and every
near miss it ships (a plausible wrong solution run as the reference, ``tasks/<task>/near_misses/``) below 1.

A near miss is *caught* when its verifier scores it below 1 (no strict pass); one that scores 1 is a hole in
the verifier and fails the gate, as does one that could not be graded (environment or verifier error).

Examples
--------
>>> records = [{"task": "a", "agent": "oracle", "attempt": 1, "status": "passed", "correctness": 1.0},
...            {"task": "a", "agent": "nop", "attempt": 1, "status": "failed", "correctness": 0.0},
...            {"task": "b", "agent": "oracle", "attempt": 1, "status": "failed", "correctness": 0.8,
...             "failed_checks": ["rg.csv has a row per frame: 99 rows, 100 frames"]},
...            {"task": "b", "agent": "nop", "attempt": 1, "status": "failed", "correctness": 0.0}]
>>> table = oracle_gate(records, ["a", "b"])
>>> table["passed"].tolist()
[True, False]
>>> table.loc[1, "reason"]
'reference solution (oracle) scored 0.8, not 1.0 (failed: rg.csv has a row per frame: 99 rows, 100 frames)'
>>> misses = {"a": [{"near_miss": "no-posre", "status": "passed", "correctness": 1.0},
...                 {"near_miss": "made-up", "status": "failed", "correctness": 0.0}]}
>>> row = oracle_gate(records, ["a"], near_misses=misses).iloc[0]
>>> (bool(row["passed"]), int(row["near_misses"]), int(row["near_miss_caught"]), float(row["near_miss_max"]),
...  row["reason"])
(False, 2, 1, 1.0, 'near miss no-posre scored 1 (passed): the verifier does not catch it')
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

import pandas as pd

from westbench.config import default

UNGRADED = ("environment_error", "verifier_error")


def near_miss_caught(record: Mapping) -> bool:
    """Whether a near miss's trial was graded and scored below 1."""
    return record["status"] not in UNGRADED and record["correctness"] < 1.0


def oracle_gate(
    records: Iterable[Mapping],
    tasks: Sequence[str],
    reference: str = default("agents.gate.reference"),
    null: str = default("agents.gate.null"),
    extra: Mapping[str, Mapping] | None = None,
    near_misses: Mapping[str, Sequence[Mapping]] | None = None,
) -> pd.DataFrame:
    """One row per task: reference and null correctness and status, the near misses (count, caught, highest
    score, those missed), whether the gate passed, and why not."""
    first = {}
    for record in records:
        if record["agent"] in (reference, null) and int(record.get("attempt", 1)) == 1:
            first[(record["task"], record["agent"])] = record
    rows = []
    for task in tasks:
        ref, nul = first.get((task, reference)), first.get((task, null))
        reasons = []
        if ref is None:
            reasons.append(f"no {reference} trial")
        elif ref["correctness"] < 1.0:
            reasons.append(
                f"reference solution ({reference}) scored {ref['correctness']:g}, not 1.0"
                + (f" [{ref['status']}: {ref.get('reason', '')}]" if ref["status"] not in ("passed", "failed") else "")
                + _failing(ref)
            )
        elif ref["status"] != "passed":  # a timed-out or crashed reference fails, whatever its verifier scored
            reasons.append(
                f"reference solution ({reference}) did not complete: {ref['status']}: {ref.get('reason', '')}"
            )
        if nul is None:
            reasons.append(f"no {null} trial")
        elif nul["correctness"] > 0.0:
            reasons.append(f"do-nothing agent ({null}) scored {nul['correctness']:g}, not 0.0")
        elif nul["status"] in ("environment_error", "verifier_error"):
            reasons.append(f"do-nothing agent ({null}) was not graded: {nul['status']}: {nul.get('reason', '')}")
        misses = list((near_misses or {}).get(task, []))
        for miss in misses:
            if miss["status"] in UNGRADED:
                reasons.append(
                    f"near miss {miss['near_miss']} was not graded: {miss['status']}: {miss.get('reason', '')}"
                )
            elif miss["correctness"] >= 1.0:
                reasons.append(
                    f"near miss {miss['near_miss']} scored {miss['correctness']:g} ({miss['status']}): "
                    "the verifier does not catch it"
                )
        rows.append(
            {
                "task": task,
                "reference_correctness": None if ref is None else ref["correctness"],
                "reference_status": None if ref is None else ref["status"],
                "null_correctness": None if nul is None else nul["correctness"],
                "null_status": None if nul is None else nul["status"],
                "near_misses": len(misses),
                "near_miss_caught": sum(near_miss_caught(m) for m in misses),
                "near_miss_max": max((m["correctness"] for m in misses), default=None),
                "near_miss_missed": " ".join(m["near_miss"] for m in misses if not near_miss_caught(m)),
                **(dict(extra.get(task, {})) if extra else {}),
                "passed": not reasons,
                "reason": "; ".join(reasons),
            }
        )
    return pd.DataFrame(rows)


def _failing(record: Mapping) -> str:
    """The failed checks a trial record names (:func:`westbench.agents.harbor.failed_checks`) and a solution
    script's non-zero exit (:func:`westbench.agents.harbor.agent_exit`), for a gate reason."""
    named = record.get("failed_checks") or []
    said = f" (failed: {'; '.join(map(str, named))})" if isinstance(named, list) and named else ""
    code = record.get("agent_exit_code")
    if code is not None:
        said += f" (its solution script exited {int(code)}; its output ends: {record.get('agent_output_tail', '')!r})"
    return said


def catch_rate(table: pd.DataFrame) -> dict:
    """The suite's near-miss catch rate from a gate table: near misses shipped, caught, and their ratio.

    >>> catch_rate(pd.DataFrame({"near_misses": [2, 1, 0], "near_miss_caught": [2, 0, 0]}))
    {'near_misses': 3, 'caught': 2, 'catch_rate': 0.666667, 'tasks_with_near_misses': 2}
    """
    shipped = int(table["near_misses"].sum()) if "near_misses" in table else 0
    caught = int(table["near_miss_caught"].sum()) if shipped else 0
    return {
        "near_misses": shipped,
        "caught": caught,
        "catch_rate": round(caught / shipped, 6) if shipped else None,
        "tasks_with_near_misses": int((table["near_misses"] > 0).sum()) if shipped else 0,
    }


def add_mutation_scores(table: pd.DataFrame, scores: pd.DataFrame) -> pd.DataFrame:
    """The gate table with each task's mutation testing (``mutation_killed``, ``mutation_total``, ``mutation_score``).

    ``scores`` is ``mutation_score.csv`` (:func:`westbench.agents.mutation.score_table`); a task without mutants
    gets empty cells. The score does not decide whether a task passes.

    >>> gate = pd.DataFrame({"task": ["a", "b"], "passed": [True, True]})
    >>> scores = pd.DataFrame({"task": ["a"], "mutants": [20], "killed": [19], "score": [0.95]})
    >>> columns = ["task", "mutation_killed", "mutation_total", "mutation_score"]
    >>> add_mutation_scores(gate, scores)[columns].values.tolist()
    [['a', 19.0, 20.0, 0.95], ['b', nan, nan, nan]]
    """
    mutation = scores.rename(
        columns={"killed": "mutation_killed", "mutants": "mutation_total", "score": "mutation_score"}
    )
    mutation = mutation[["task", "mutation_killed", "mutation_total", "mutation_score"]]
    return table.merge(mutation, on="task", how="left")
