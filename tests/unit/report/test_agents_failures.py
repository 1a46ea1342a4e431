"""The agent page's process and failure sections: shown from the analysis's files, "not run" without them, and what
an unjudged or gate-only run says instead of empty tables."""

import pandas as pd

from westbench.report.agents_page import FILES, example_files

from .test_agents_page import page, section


def test_the_sections_show_profiles_correlation_claims_tool_errors_and_breaches(tmp_path):
    html = page(tmp_path, example_files(tmp_path / "agents"))
    process, failures = section(html, "process"), section(html, "failures")
    assert "coverage-adjusted" in process and "excluded, never scored 0" in process
    assert "model-agent / openai-gpt" in process and "(n=" in process and "Spearman rho [95 %]" in process
    assert "data:image/png;base64" in process and "data:image/png;base64" in failures
    assert "claim rate" in failures and "per 100 results" in failures and "recovered" in failures
    assert "By difficulty" in failures and "By category" in failures
    assert "The gate's agents (oracle, nop) are left out" in failures


def test_without_the_analysis_both_sections_say_not_run(tmp_path):
    html = page(tmp_path, example_files(tmp_path / "agents", failures=False))
    assert "Process scorecards: not run" in section(html, "process")
    assert "Failure analysis: not run" in section(html, "failures")


def test_unjudged_scorecards_and_a_gate_only_run_say_why_there_is_no_profile(tmp_path):
    files = example_files(tmp_path / "agents")
    cards = pd.read_csv(files["process_table"])
    cards.assign(judged=False, process=None).to_csv(files["process_table"], index=False)
    assert "12 scorecards, none judged" in section(page(tmp_path, files), "process")
    cards.iloc[:0].to_csv(files["process_table"], index=False)
    assert "No trial has a scorecard" in section(page(tmp_path, files), "process")


def test_a_task_without_enough_trials_is_counted_not_listed(tmp_path):
    files = example_files(tmp_path / "agents")
    table = pd.read_csv(files["process_correlation"])
    tasks = table[table["scope"] == "task"]
    assert len(tasks) and tasks["spearman"].isna().all()  # three trials per task in the example
    process = section(page(tmp_path, files), "process")
    assert f"{len(tasks)} tasks have no rho of their own" in process
    assert all(f"<td>{task}</td>" not in process for task in tasks["group"])
    assert FILES["process_correlation"] == "process_correlation.csv"


def test_a_gate_only_run_shows_the_gate_agents_signatures_and_no_empty_figure(tmp_path):
    files = example_files(tmp_path / "agents")
    breaches = pd.read_csv(files["breaches"])
    breaches[breaches["agent"] == "nop"].to_csv(files["breaches"], index=False)
    for role in ("completion", "tool_errors"):
        pd.read_csv(files[role]).iloc[:0].to_csv(files[role], index=False)
    failures = section(page(tmp_path, files), "failures")
    assert "Only the gate's agents (oracle, nop) ran" in failures and "left out" not in failures
    assert failures.count("No trial left a trajectory") == 2 and "Completion claims and tool errors" not in failures
