"""The oracle gate: a task counts only when its reference solution scores 1 and the do-nothing agent 0.

Examples
--------
>>> records = [{"task": "a", "agent": "oracle", "attempt": 1, "status": "passed", "correctness": 1.0},
...            {"task": "a", "agent": "nop", "attempt": 1, "status": "failed", "correctness": 0.0},
...            {"task": "b", "agent": "oracle", "attempt": 1, "status": "failed", "correctness": 0.8},
...            {"task": "b", "agent": "nop", "attempt": 1, "status": "failed", "correctness": 0.0}]
>>> table = oracle_gate(records, ["a", "b"])
>>> table["passed"].tolist()
[True, False]
>>> table.loc[1, "reason"]
'reference solution (oracle) scored 0.8, not 1.0'
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

import pandas as pd


def oracle_gate(records: Iterable[Mapping], tasks: Sequence[str], reference: str = "oracle", null: str = "nop",
                extra: Mapping[str, Mapping] | None = None) -> pd.DataFrame:
    """One row per task: reference and null correctness and status, whether the gate passed, and why not."""
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
            reasons.append(f"reference solution ({reference}) scored {ref['correctness']:g}, not 1.0"
                           + (f" [{ref['status']}: {ref.get('reason', '')}]" if ref["status"] not in ("passed", "failed") else ""))
        elif ref["status"] != "passed":  # a timed-out or crashed reference fails, whatever its verifier scored
            reasons.append(f"reference solution ({reference}) did not complete: {ref['status']}: {ref.get('reason', '')}")
        if nul is None:
            reasons.append(f"no {null} trial")
        elif nul["correctness"] > 0.0:
            reasons.append(f"do-nothing agent ({null}) scored {nul['correctness']:g}, not 0.0")
        elif nul["status"] in ("environment_error", "verifier_error"):
            reasons.append(f"do-nothing agent ({null}) was not graded: {nul['status']}: {nul.get('reason', '')}")
        rows.append({"task": task, "reference_correctness": None if ref is None else ref["correctness"],
                     "reference_status": None if ref is None else ref["status"],
                     "null_correctness": None if nul is None else nul["correctness"],
                     "null_status": None if nul is None else nul["status"],
                     **(dict(extra.get(task, {})) if extra else {}),
                     "passed": not reasons, "reason": "; ".join(reasons)})
    return pd.DataFrame(rows)
