"""The agent page's synthetic inputs: the roles written, the gate's agents and the failure files drawn once, seeded."""

import pandas as pd

from westbench.report.agents_examples import (
    _draw_example_failure_files,
    _model_trial,
    example_failure_files,
    example_files,
)
from westbench.report.agents_results import FILES


def test_without_failures_only_the_pages_own_tables_are_written(tmp_path):
    files = example_files(tmp_path, failures=False)
    assert sorted(files) == ["by_tag", "gate", "gate_summary", "leaderboard", "trials_table"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(FILES[role] for role in files)
    trials = pd.read_csv(files["trials_table"])
    assert set(trials.loc[trials["agent"] == "oracle", "status"]) == {"passed"}
    assert set(trials.loc[trials["agent"] == "nop", "status"]) == {"failed"}
    assert not pd.read_csv(files["gate"]).set_index("task").loc["broken-three", "passed"]


def test_the_failure_files_are_a_copy_of_one_seeded_draw(tmp_path):
    (tmp_path / "fresh").mkdir()
    (tmp_path / "copy").mkdir()
    _draw_example_failure_files(tmp_path / "fresh")
    example_failure_files(tmp_path / "copy")
    fresh = {p.name: p.read_bytes() for p in (tmp_path / "fresh").iterdir()}
    assert fresh == {p.name: p.read_bytes() for p in (tmp_path / "copy").iterdir()}
    process = pd.read_csv(tmp_path / "copy" / FILES["process_table"])
    assert len(process) == 12 and process["process"].between(0, 1).all()


def test_every_third_model_trial_fails_by_turns_for_a_missing_deliverable_or_a_failed_check():
    trials = [_model_trial(k) for k in range(12)]
    failed = [k for k, trial in enumerate(trials) if trial["outcome"] != "passed"]
    assert failed == [0, 3, 6, 9]
    assert [trials[k]["signature"] for k in failed] == ["missing deliverable", "failed check"] * 2
