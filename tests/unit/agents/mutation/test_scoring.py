"""Equivalent mutants need a reason; scores leave them and errors out; the report's tables keep their columns."""

import json

import pytest

from westbench.agents.mutation import load_equivalents, score_table, suite_score, write_mutation_tables
from westbench.agents.tasks import TaskError


def test_equivalents_need_a_reason_and_scores_leave_them_and_errors_out(tmp_path):
    (tmp_path / "mutants.toml").write_text('[equivalent]\n"constant:a.json:x" = "short"\n')
    with pytest.raises(TaskError, match="needs a reason"):
        load_equivalents(tmp_path)
    rows = [
        {"task": "t", "mutant": "a", "killed": True, "equivalent": False, "outcome": "0.5"},
        {"task": "t", "mutant": "b", "killed": False, "equivalent": False, "outcome": "1"},
        {"task": "t", "mutant": "c", "killed": False, "equivalent": True, "outcome": "1"},
        {"task": "t", "mutant": "d", "killed": False, "equivalent": False, "outcome": "error: not graded"},
    ]
    (row,) = score_table(rows)
    assert (row["mutants"], row["killed"], row["score"], row["errors"]) == (4, 1, 0.5, 1)
    assert row["survivors"] == "b;c" and row["unjustified"] == "b" and row["equivalent_justified"] == 1
    assert suite_score([row])["score"] == 0.5


def test_the_tables_the_report_reads_have_their_contracted_columns(tmp_path):
    record = {
        "task": "t",
        "mutants": [
            {"task": "t", "mutant": "m", "operator": "delete", "file": "a", "description": "d", "killed": True,
             "outcome": "0", "level": "output", "correctness": 0.0, "equivalent": False, "equivalent_reason": ""}
        ],
    }  # fmt: skip
    (tmp_path / "t.json").write_text(json.dumps(record))
    summary = write_mutation_tables(
        [tmp_path / "t.json"], tmp_path / "mutation.csv", tmp_path / "score.csv", tmp_path / "m.json"
    )
    header = (tmp_path / "mutation.csv").read_text().splitlines()[0].split(",")
    assert header[:6] == ["task", "mutant", "operator", "file", "description", "killed"] and "outcome" in header
    score = (tmp_path / "score.csv").read_text().splitlines()[0].split(",")
    assert score[:6] == ["task", "mutants", "killed", "score", "survivors", "equivalent_justified"]
    assert summary["score"] == 1.0 and summary["mutants"] == 1
    assert score[-2:] == ["numeric_items", "resolution"]  # a record without its resolution (an old cache): empty


def test_the_mutation_score_states_each_tasks_resolution(tmp_path):
    import pandas as pd

    resolution = [
        {"item": "dt", "kind": "parameter", "window": "exact", "smallest_mistake": "4 fs", "checks": "dt"},
        {"item": "rg", "kind": "computed", "window": "1e-3 nm", "smallest_mistake": "a frame left out", "checks": "rg"},
    ]
    row = {"task": "t", "mutant": "m", "operator": "delete", "killed": True, "outcome": "0", "equivalent": False}
    from westbench.agents.contract.resolution import resolution_summary

    record = {
        "task": "t",
        "mutants": [row],
        "resolution": resolution,
        "resolution_summary": resolution_summary(resolution),
    }
    (tmp_path / "t.json").write_text(json.dumps(record))
    write_mutation_tables([tmp_path / "t.json"], tmp_path / "m.csv", tmp_path / "s.csv", tmp_path / "m.json")
    score = pd.read_csv(tmp_path / "s.csv").iloc[0]
    assert score["numeric_items"] == 2 and score["resolution"] == "dt: 4 fs; rg: a frame left out"
