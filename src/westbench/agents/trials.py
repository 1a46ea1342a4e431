"""The trial records of the agent benchmark: every ``trial.json`` with its ``judge.json``, one row per trial.

Examples
--------
>>> import json, tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> _ = (folder / "trial.json").write_text(json.dumps({"task": "t", "agent": "oracle", "model": "none", "attempt": 1,
...                                                     "status": "passed", "correctness": 1.0}))
>>> table = read_trials([folder / "trial.json"], [])
>>> table.loc[0, "task"], table.loc[0, "status"], bool(table.loc[0, "judged"])
('t', 'passed', False)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

import pandas as pd

TRIAL_COLUMNS = (
    "task",
    "agent",
    "model",
    "model_name",
    "attempt",
    "status",
    "reason",
    "correctness",
    "tokens_in",
    "tokens_out",
    "cost_usd",
    "wall_s",
    "overhead_s",
    "difficulty",
    "category",
)


def read_trials(trial_paths: Iterable[str | Path], judge_paths: Iterable[str | Path]) -> pd.DataFrame:
    """One row per trial.json with its judge.json's scores, joined on (task, agent, model, attempt).

    ``model`` is the agent's model id in both files; the judge's own model is ``judge_model``.
    """
    judges = {}
    for path in judge_paths:
        judge = json.loads(Path(path).read_text())
        judges[(judge["task"], judge["agent"], judge["model"], judge["attempt"])] = judge
    rows = []
    for path in trial_paths:
        trial = json.loads(Path(path).read_text())
        judge = judges.get((trial["task"], trial["agent"], trial["model"], trial["attempt"]), {})
        rows.append(
            {key: trial.get(key) for key in TRIAL_COLUMNS}
            | {
                "process": judge.get("process"),
                "process_mean": judge.get("process_mean"),
                "all_criteria_passed": judge.get("all_passed"),
                "judged": bool(judge.get("judged", False)),
                "judge_windows": judge.get("windows"),
                "judge_not_shown": sum(len(names) for names in (judge.get("not_shown") or {}).values()),
                "judge_incomplete": bool(judge.get("incomplete")),
                # the plain fraction of all checks (format checks included), beside correctness (science only)
                "checks_fraction": (trial.get("rewards") or {}).get("checks_fraction"),
            }
        )
    return pd.DataFrame(rows)
