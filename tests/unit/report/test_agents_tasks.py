"""The agent page's sections about the tasks: a row per task with its trials, the oracle gate with its catch rates,
and mutation testing ("not run" until its results exist), each from small synthetic results."""

import pandas as pd
import pytest

from westbench.report.agents_page import AgentResults, example_files
from westbench.report.agents_tasks import gate_section, mutation_section, tasks_section


@pytest.fixture
def results(tmp_path):
    return AgentResults.read(example_files(tmp_path / "agents", failures=False), tmp_path / "report")


def test_a_row_per_task_of_the_gate_or_the_trials(results):
    html = str(tasks_section(results))
    tasks = set(results.gate["task"]) | set(results.trials["task"])
    assert html.count("<tr") == len(tasks) + 1
    assert html.count('<div class="trial">') == len(results.trials)
    assert "easy-one" in html and "broken-three" in html
    results.trials = results.trials.iloc[0:0]
    assert str(tasks_section(results)) == "<p>No trial was recorded.</p>"


def test_a_trial_links_its_record_its_harbor_folder_and_its_log(results, tmp_path):
    record = results.trials.iloc[0]
    key = (record["task"], record["agent"], record["model"], int(record["attempt"]))
    path = tmp_path / "results" / "trial.json"
    results.trial_files[key] = path
    results.trial_records[key] = {"trial_dir": str(tmp_path / "harbor" / "x")}
    results.trial_log = str(tmp_path / "logs" / "{task}_{agent}_{attempt}.log")
    html = str(tasks_section(results))
    assert f'<a href="../results/trial.json">{record["status"]} {float(record["correctness"]):.2f}</a>' in html
    assert '<a href="../harbor/x">Harbor</a>' in html
    assert f'<a href="../logs/{key[0]}_{key[1]}_{key[3]}.log">log</a>' in html


def test_the_gate_counts_passed_tasks_and_lists_the_failed_with_their_reason(results):
    html = str(gate_section(results))
    gate = results.gate
    assert f"{int(gate['passed'].sum())} of {len(gate)} tasks passed the gate" in html
    assert "<h3>Tasks that failed the gate</h3>" in html and "oracle scored 0.5" in html
    rate = results.gate_summary["near_miss_catch_rate"]
    assert f"{rate['caught']} of {rate['near_misses']} caught (100 %)" in html
    assert "Mutation catch rate:</b> not run" in html


def test_the_gate_states_each_tasks_resolution(results):
    html = str(gate_section(results))
    assert "1 numeric requirements over 2 tasks" in html
    assert "<td>mean-rg</td>" in html and "the first frame left out (0.004 nm)" in html
    results.gate_summary = {k: v for k, v in results.gate_summary.items() if k != "resolution"}
    assert "no task states one" in str(gate_section(results))


def test_mutation_results_give_the_catch_rate_and_the_survivors(results):
    assert "Mutation testing: not run" in str(mutation_section(results))
    results.mutation_score = pd.DataFrame({"task": ["easy-one", "hard-two"], "killed": [3, 1], "mutants": [4, 4]})
    results.mutation = pd.DataFrame({"mutant": ["a", "b"], "killed": [True, False]})
    assert "4 of 8 mutants killed (50 %)" in str(gate_section(results))
    html = str(mutation_section(results))
    assert "<h3>Surviving mutants</h3>" in html and "<td>b</td>" in html and "<td>a</td>" not in html
    assert "3 of 4" in str(tasks_section(results))
    results.mutation = results.mutation.assign(killed=True)
    assert "Every mutant was killed." in str(mutation_section(results))


def test_the_gate_csv_mutation_columns_give_the_rate_without_mutation_score(results):
    results.gate = results.gate.assign(mutation_killed=[2, None, 1], mutation_total=[2, None, 3])
    assert "3 of 5 mutants killed (60 %)" in str(gate_section(results))
    assert "2 of 2" in str(tasks_section(results)) and "1 of 3" in str(tasks_section(results))


def test_a_task_whose_near_misses_the_run_left_out_reads_not_run_not_none_caught(results):
    task = results.gate["task"].iloc[0]
    results.gate["near_misses_run"] = results.gate["task"] != task
    rows = str(tasks_section(results)).split("<tr")[2:]
    assert [task in r for r in rows if "not run (agents.gate.near_misses)" in r] == [True]


def test_a_task_whose_near_misses_the_recorded_gate_caught_names_that_gate_not_a_catch_of_this_run(results):
    first, second = results.gate["task"].iloc[:2]
    results.gate["near_misses_run"] = ~results.gate["task"].isin([first, second])
    results.gate["near_misses_recorded"] = results.gate["task"].map({first: "abc1234"}).fillna("")
    rows = str(tasks_section(results)).split("<tr")[2:]
    assert [first in r for r in rows if "all caught by the recorded gate of abc1234 (same inputs)" in r] == [True]
    assert [second in r for r in rows if "not run (agents.gate.near_misses)" in r] == [True]  # no record: not run
    gate = str(gate_section(results))
    assert "The near misses of 1 more tasks were not rerun: the recorded full gate (abc1234) caught all" in gate
