"""The failure analysis step over the recorded trials (several attempts each), their scorecards from a stand-in
judge, and the gate's agents: tables, figures, and the agent page's sections built from them."""

import json

import numpy as np
import pandas as pd
import pytest

from westbench.agents.failures import ANALYSIS_OUTPUTS, analyse_failures
from westbench.agents.judge import JudgeSettings
from westbench.agents.process import score_trial
from westbench.report.agents_page import example_files, write_agents_page

from ...conftest import REPO
from ..process.test_scorecard import reader
from ..recorded import recorded_trial

ATTEMPTS = 3
JUDGE = JudgeSettings.from_env({"WESTBENCH_JUDGE_MODEL": "j", "WESTBENCH_JUDGE_BASE_URL": "http://unused"}, repeats=1)


@pytest.fixture(scope="module")
def analysed(tmp_path_factory):
    root = tmp_path_factory.mktemp("failures")
    trials, judges, cards = [], [], []
    for offset, scenario in enumerate(("claims-and-fails", "recovers-and-passes")):
        for attempt in range(1 + offset * ATTEMPTS, 1 + (offset + 1) * ATTEMPTS):
            folder, trial = recorded_trial(scenario, root, agent="terminus-2", attempt=attempt)
            trial["model"] = "scripted"
            (folder / "trial.json").write_text(json.dumps(trial))
            judge = json.loads((folder / "judge.json").read_text()) | {"model": "scripted"}
            (folder / "judge.json").write_text(json.dumps(judge))
            card = score_trial(trial, REPO / "tasks" / trial["task"], JUDGE, root / "cache", call=reader)
            (folder / "process.json").write_text(json.dumps(card))
            trials.append(folder / "trial.json")
            judges.append(folder / "judge.json")
            cards.append(folder / "process.json")
    nop = root / "nop.json"  # the null agent: no trajectory, nothing delivered
    record = {"task": "we-weighted-rg", "agent": "nop", "model": "none", "attempt": 1, "status": "failed"}
    nop.write_text(json.dumps(record | {"correctness": 0.0, "difficulty": "easy", "category": "analysis"}))
    (root / "gate.json").write_text(json.dumps({"passed": ["we-weighted-rg"], "failed": {}}))
    outputs = {
        name: root / "out" / f"{name}.{'png' if name.endswith('figure') else 'csv'}" for name in ANALYSIS_OUTPUTS
    }
    tables = analyse_failures(
        [*trials, nop],
        judges,
        cards,
        root / "gate.json",
        tasks=["we-weighted-rg"],
        tasks_dir=REPO / "tasks",
        gate_agents=("oracle", "nop"),
        settings={"bootstrap_resamples": 300, "correlation_min_trials": 5},
        seed=11,
        outputs=outputs,
    )
    return root, tables, outputs


def test_every_output_is_written(analysed):
    _, _, outputs = analysed
    assert all(path.is_file() and path.stat().st_size > 0 for path in outputs.values())


def test_completion_claims_by_outcome(analysed):
    _, tables, _ = analysed
    table = tables["completion"].set_index(["agent", "outcome"])
    failed, passed = table.loc[("terminus-2", "not passed")], table.loc[("terminus-2", "passed")]
    assert failed["trials"] == passed["trials"] == ATTEMPTS
    assert failed["claim_rate"] == passed["claim_rate"] == 1.0  # both claim: a claim is not evidence
    assert failed["claim_rate_lo"] < 1.0 and failed["completion_call_rate"] == 1.0
    assert ("nop", "not passed") not in table.index  # no trajectory: left out of the language table


def test_tool_errors_per_100_results(analysed):
    _, tables, _ = analysed
    table = tables["tool_errors"].set_index(["agent", "outcome"])
    passed = table.loc[("terminus-2", "passed")]
    assert passed["tool_results"] == 5 * ATTEMPTS and passed["tool_errors"] == 2 * ATTEMPTS
    assert passed["errors_per_100_results"] == pytest.approx(40.0)
    assert passed["errors_per_100_results_lo"] < 40.0 < passed["errors_per_100_results_hi"]
    assert passed["trials_with_error"] == passed["recovered"] == ATTEMPTS
    assert table.loc[("terminus-2", "not passed"), "tool_errors"] == 0


def test_breach_signatures_by_difficulty_and_category(analysed):
    _, tables, _ = analysed
    table = tables["breaches"].set_index(["agent", "tag", "value"])
    row = table.loc[("terminus-2", "category", "analysis")]
    assert row["trials"] == 2 * ATTEMPTS and row["not_passed"] == ATTEMPTS
    assert row["missing_deliverable"] == row["failed_check"] == ATTEMPTS and row["missing_deliverable_rate"] == 1.0
    assert row["signature_missing_deliverable"] == ATTEMPTS
    assert table.loc[("terminus-2", "difficulty", "easy"), "not_passed"] == ATTEMPTS
    nop = tables["failures"].set_index("agent").loc["nop"]
    assert nop["trajectory"] == "absent" and nop["signature"] == "failed check"  # no checks.json: correctness < 1


def test_failure_modes_per_trial_and_by_tag(analysed):
    _, tables, _ = analysed
    failures = tables["failures"].set_index(["agent", "outcome"])
    invented = failures.loc[("terminus-2", "not passed")]  # json.dump of literals, never a computation
    assert set(invented["failure_mode"]) == {"fabricated output"} and invented["premature_abandonment"].all()
    assert set(failures.loc[("terminus-2", "passed"), "failure_mode"].fillna("")) == {""}
    assert failures.loc[("nop", "not passed"), "failure_mode"] == "other"  # no checks, no trajectory: no evidence
    row = tables["breaches"].set_index(["agent", "tag", "value"]).loc[("terminus-2", "category", "analysis")]
    assert row["mode_fabricated_output"] == ATTEMPTS and row["mode_premature_abandonment"] == 0


def test_process_tables_and_the_correlation(analysed):
    _, tables, _ = analysed
    process = tables["process"]
    assert len(process) == 2 * ATTEMPTS and process["judged"].all() and set(process["coverage"]) == {0.5}
    assert pd.isna(process["repair"]).all()  # no opportunity in this task
    summary = tables["process_summary"].set_index("measure")
    assert summary.loc["process", "estimate"] == pytest.approx(0.5) and summary.loc["repair", "trials"] == 0
    overall = tables["process_correlation"].set_index("scope").loc["overall"]
    assert overall["trials"] == 2 * ATTEMPTS and overall["spearman"] == pytest.approx(1.0)
    assert np.isnan(overall["lo"]) or overall["lo"] <= 1.0


def test_the_agent_page_shows_the_process_and_failure_sections(analysed, tmp_path):
    root, _, outputs = analysed
    files = example_files(tmp_path / "agents", failures=False)
    roles = {"process": "process_table", "completion": "completion", "tool_errors": "tool_errors"}
    for name in ANALYSIS_OUTPUTS:
        files[roles.get(name, name)] = outputs[name]
    page = tmp_path / "agents.html"
    write_agents_page(page, files, title="agents", gate_agents=("oracle", "nop"))
    html = page.read_text()
    assert '<h2 id="process">Process scorecards</h2>' in html and '<h2 id="failures">Failure analysis</h2>' in html
    assert "coverage-adjusted" in html and "Spearman" in html and "missing deliverable" in html
    assert "fabricated output 3" in html  # the published failure modes, counted per tag beside the signatures
    assert html.index('id="process"') < html.index('id="failures"') < html.index('id="tasks"')
