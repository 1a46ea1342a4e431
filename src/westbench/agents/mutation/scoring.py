"""Mutation scores: the equivalent survivors a task justifies (``mutants.toml``), each task's score and the suite's,
and the tables the report reads (``mutation.csv``, ``mutation_score.csv``, ``mutation.json``)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Mapping, Sequence

from westbench.agents.tasks import TaskError

EQUIVALENTS = "mutants.toml"


def load_equivalents(task_path: str | Path) -> dict[str, str]:
    """The surviving mutants a task justifies as equivalent (``mutants.toml``: ``[equivalent]`` id = reason).

    >>> import tempfile, pathlib
    >>> task = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (task / "mutants.toml").write_text('[equivalent]\\n"delete:notes.md" = "notes are optional"\\n')
    >>> load_equivalents(task)
    {'delete:notes.md': 'notes are optional'}
    """
    path = Path(task_path) / EQUIVALENTS
    if not path.is_file():
        return {}
    try:
        raw = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise TaskError(f"{path} is not valid TOML: {exc}") from None
    if set(raw) - {"equivalent"}:
        raise TaskError(f"{path}: only an [equivalent] table (mutant id = reason) is allowed")
    table = raw.get("equivalent", {})
    for key, reason in table.items():
        if not isinstance(reason, str) or len(reason.strip()) < 10:
            raise TaskError(f"{path}: equivalent mutant {key!r} needs a reason (a sentence, why it changes nothing)")
    return dict(table)


MUTATION_COLUMNS = (
    "task",
    "mutant",
    "operator",
    "file",
    "description",
    "killed",
    "outcome",
    "level",
    "correctness",
    "equivalent",
    "equivalent_reason",
)
SCORE_COLUMNS = (
    "task",
    "mutants",
    "killed",
    "score",
    "survivors",
    "equivalent_justified",
    "unjustified",
    "errors",
    "numeric_items",
    "resolution",
)


def score_table(rows: Sequence[Mapping]) -> list[dict]:
    """Per task: mutants, killed, score = killed / (mutants - equivalent survivors), survivors (';'-joined).

    A mutant the harness could not run (``outcome`` starting with ``error``) counts in ``errors``, not in the score.

    >>> rows = [{"task": "a", "mutant": "m1", "killed": True, "equivalent": False, "outcome": "0.5"},
    ...         {"task": "a", "mutant": "m2", "killed": False, "equivalent": True, "outcome": "1.0"},
    ...         {"task": "a", "mutant": "m3", "killed": False, "equivalent": False, "outcome": "1.0"}]
    >>> row = score_table(rows)[0]
    >>> row["mutants"], row["killed"], row["score"], row["survivors"], row["equivalent_justified"], row["unjustified"]
    (3, 1, 0.5, 'm2;m3', 1, 'm3')
    """
    tasks = dict.fromkeys(row["task"] for row in rows)
    table = []
    for task in tasks:
        mine = [r for r in rows if r["task"] == task]
        errors = [r for r in mine if str(r.get("outcome", "")).startswith("error")]
        graded = [r for r in mine if r not in errors]
        killed = [r for r in graded if r["killed"]]
        survivors = [r for r in graded if not r["killed"]]
        equivalent = [r for r in survivors if r.get("equivalent")]
        denominator = len(graded) - len(equivalent)
        table.append(
            {
                "task": task,
                "mutants": len(mine),
                "killed": len(killed),
                "score": round(len(killed) / denominator, 4) if denominator else 1.0,
                "survivors": ";".join(r["mutant"] for r in survivors),
                "equivalent_justified": len(equivalent),
                "unjustified": ";".join(r["mutant"] for r in survivors if not r.get("equivalent")),
                "errors": len(errors),
            }
        )
    return table


def suite_score(table: Sequence[Mapping]) -> dict:
    """The suite's mutation score over every task's mutants (equivalent survivors left out).

    >>> suite_score([{"mutants": 10, "killed": 9, "equivalent_justified": 1, "errors": 0},
    ...              {"mutants": 5, "killed": 4, "equivalent_justified": 0, "errors": 0}])
    {'mutants': 15, 'killed': 13, 'equivalent_justified': 1, 'errors': 0, 'score': 0.9286}
    """
    mutants = sum(int(r["mutants"]) for r in table)
    killed = sum(int(r["killed"]) for r in table)
    equivalent = sum(int(r["equivalent_justified"]) for r in table)
    errors = sum(int(r.get("errors", 0)) for r in table)
    denominator = mutants - equivalent - errors
    return {
        "mutants": mutants,
        "killed": killed,
        "equivalent_justified": equivalent,
        "errors": errors,
        "score": round(killed / denominator, 4) if denominator else None,
    }


def write_mutation_tables(records: Sequence[str | Path], mutants_csv, scores_csv, summary_json) -> dict:
    """``mutation.csv`` (one row per mutant), ``mutation_score.csv`` (per task, with the task's resolution as its
    record states it: :func:`westbench.agents.contract.resolution.resolution_summary`) and the suite's score (JSON).

    ``records`` are the per-task results of :func:`westbench.agents.mutation_run.mutate_task`.
    """
    import pandas as pd

    rows = []
    stale = {}
    resolution = {}
    for path in records:
        record = json.loads(Path(path).read_text())
        rows += record["mutants"]
        resolution[record["task"]] = record.get("resolution_summary") or {}
        if record.get("equivalent_unknown") or record.get("equivalent_killed"):
            stale[record["task"]] = record.get("equivalent_unknown", []) + record.get("equivalent_killed", [])
    columns = list(MUTATION_COLUMNS) + sorted({k for r in rows for k in r} - set(MUTATION_COLUMNS))
    pd.DataFrame(rows, columns=columns).to_csv(mutants_csv, index=False)
    table = [{**row, **resolution.get(row["task"], {})} for row in score_table(rows)]
    pd.DataFrame(table, columns=list(SCORE_COLUMNS)).to_csv(scores_csv, index=False)
    summary = {**suite_score(table), "tasks": len(table), "equivalent_stale": stale}
    Path(summary_json).write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n")
    return summary
