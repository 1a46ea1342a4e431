"""The agent benchmark's page: its sections from small synthetic results, mutation testing shown or "not run"."""

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from westbench.report import agents_page, agents_results
from westbench.report.agents_page import FILES, SECTIONS, AgentResults, example_files, register, write_agents_page


def page(tmp_path, files, **options):
    path = tmp_path / "report" / "agents.html"
    write_agents_page(path, files, title="agents", gate_agents=("oracle", "nop"), **options)
    return path.read_text()


def section(html, key):
    start = html.index(f'<h2 id="{key}">')
    end = html.find("<h2 id=", start + 1)
    return html[start : end if end > 0 else None]


def test_every_registered_section_is_shown_with_a_heading_and_a_contents_entry(tmp_path):
    html = page(tmp_path, example_files(tmp_path / "agents"))
    for entry in SECTIONS:
        assert f'<h2 id="{entry.key}">{entry.title}</h2>' in html and f'href="#{entry.key}"' in html
    summary = section(html, "summary")
    assert "2 of 3 tasks passed the oracle gate" in summary and "model-agent / openai-gpt is the only agent" in summary
    # against the gate's agents: its interval [0.1, 0.9] overlaps both the reference's [0.6, 1] and the null's [0, 0.4]
    assert "not told apart from oracle; not told apart from nop" in summary
    assert "What limits this: 2 trials per agent" in summary
    board = section(html, "leaderboard")
    assert "50 % [9, 90]" in board and "(gate reference)" in board  # rate [Wilson interval], rounded outward
    assert "Mutation testing: not run" in section(html, "mutation")
    assert "Mutation catch rate:</b> not run" in section(html, "gate")
    assert "2 of 2 caught (100 %)" in section(html, "gate")


def test_each_trial_links_its_records_relative_to_the_page(tmp_path):
    folder = tmp_path / "agents"
    files = example_files(folder)
    trial = tmp_path / "results" / "agents" / "trials" / "easy-one" / "oracle" / "none" / "1" / "trial.json"
    trial.parent.mkdir(parents=True)
    trial.write_text(
        json.dumps(
            {
                "task": "easy-one",
                "agent": "oracle",
                "model": "none",
                "attempt": 1,
                "trial_dir": str(tmp_path / "results" / "agents" / "harbor" / "x"),
            }
        )
    )
    html = page(tmp_path, files, trial_files=[trial], trial_log=str(tmp_path / "logs" / "trial_{task}_{agent}.log"))
    tasks = section(html, "tasks")
    assert '<a href="../results/agents/trials/easy-one/oracle/none/1/trial.json">passed 1.00</a>' in tasks
    assert (
        '<a href="../results/agents/harbor/x">Harbor</a>' in tasks
        and 'href="../logs/trial_easy-one_oracle.log"' in tasks
    )


def test_a_trial_whose_record_the_page_was_not_given_is_shown_unlinked(tmp_path):
    """The page links the trial files it is given (in the workflow, every trial of trials.csv): it guesses no
    path for the others."""
    tasks = section(page(tmp_path, example_files(tmp_path / "agents")), "tasks")
    assert 'class="trial"><a href=' not in tasks
    assert re.search(r'<div class="trial">(passed|failed|\w+)( \d\.\d\d)?</div>', tasks)


def test_mutation_results_are_shown_when_present(tmp_path):
    folder = tmp_path / "agents"
    files = example_files(folder)
    pd.DataFrame(
        {
            "task": ["easy-one", "hard-two"],
            "mutants": [4, 3],
            "killed": [4, 2],
            "score": [1.0, 0.667],
            "survivors": ["", "drop-check"],
            "equivalent_justified": [0, 0],
        }
    ).to_csv(folder / FILES["mutation_score"], index=False)
    pd.DataFrame(
        {
            "task": ["hard-two"] * 2,
            "mutant": ["m1", "drop-check"],
            "operator": ["flip", "delete"],
            "file": ["tests/check.py"] * 2,
            "description": ["flip a comparison", "drop a check"],
            "killed": [True, False],
            "outcome": ["killed", "survived"],
        }
    ).to_csv(folder / FILES["mutation"], index=False)
    files = {**files, "mutation": folder / FILES["mutation"], "mutation_score": folder / FILES["mutation_score"]}
    html = page(tmp_path, files)
    assert "6 of 7 mutants killed (86 %)" in section(html, "gate")
    mutation = section(html, "mutation")
    assert "Surviving mutants" in mutation and "drop a check" in mutation and "flip a comparison" not in mutation
    assert re.search(r"<td>hard-two</td>.*?<td>2 of 3</td>", section(html, "tasks"), re.S)


def test_the_gate_csv_mutation_columns_alone_are_enough(tmp_path):
    folder = tmp_path / "agents"
    files = example_files(folder)
    gate = pd.read_csv(files["gate"]).assign(mutation_killed=[3, 1, None], mutation_total=[3, 2, None])
    gate.to_csv(files["gate"], index=False)
    assert "4 of 5 mutants killed (80 %)" in section(page(tmp_path, files), "gate")


def test_only_the_gate_agents_is_said_to_rank_nothing(tmp_path):
    folder = tmp_path / "agents"
    files = example_files(folder)
    board = pd.read_csv(files["leaderboard"])
    board[board["agent"] != "model-agent"].to_csv(files["leaderboard"], index=False)
    assert "Only the gate's own agents ran" in section(page(tmp_path, files), "summary")


def test_a_new_section_registers_in_order_and_twice_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setattr(agents_results, "SECTIONS", list(SECTIONS))

    @register("demo", "A later stage's section", before="gate")
    def demo(results: AgentResults):
        return None if results.trials is None else agents_page.Markup("<p>a later stage</p>")

    keys = [s.key for s in agents_results.SECTIONS]
    assert keys.index("demo") == keys.index("gate") - 1
    assert "<p>a later stage</p>" in page(tmp_path, example_files(tmp_path / "agents"))
    with pytest.raises(ValueError, match="registered twice"):
        register("demo", "again")(demo)


def test_a_required_file_missing_is_named(tmp_path):
    files = example_files(tmp_path / "agents")
    del files["gate"]
    with pytest.raises(ValueError, match="gate"):
        page(tmp_path, files)


def test_two_agents_under_test_are_ranked_by_the_rule_and_ties_shown(tmp_path):
    folder = tmp_path / "agents"
    files = example_files(folder)
    board = pd.read_csv(files["leaderboard"])
    second = board[board["agent"] == "model-agent"].assign(
        agent="other-agent", pass_rate=0.95, pass_rate_lo=0.95, pass_rate_hi=1.0
    )
    pd.concat([board, second]).to_csv(files["leaderboard"], index=False)
    summary = section(page(tmp_path, files), "summary")
    assert "other-agent / openai-gpt ranks first" in summary and "above nop" in summary
    tie = pd.concat([board, second.assign(pass_rate_lo=0.5)])
    tie.to_csv(files["leaderboard"], index=False)
    assert "The agents under test tie" in section(page(tmp_path, files), "summary")


def test_every_section_renders_when_no_task_passed_the_gate(tmp_path):
    """A dropped-in task that fails the gate leaves header-only tables (the leaderboard with fewer columns than a
    filled one): every section still renders, the score sections saying why there is nothing to rank."""
    files = example_files(tmp_path / "agents")
    for role, header in (
        ("leaderboard", "agent,model,tasks,trials,pass_rate,fc_avg_score,gated_tasks,excluded_tasks\n"),
        ("by_tag", "agent,model,tag,value,tasks,trials,pass_rate,fc_avg_score\n"),
        ("trials_table", "task,agent,model,attempt,status,correctness,cost_usd,wall_s,difficulty,category\n"),
    ):
        Path(files[role]).write_text(header)
    html = page(tmp_path, files)
    for entry in SECTIONS:
        assert f'<h2 id="{entry.key}">' in html, entry.key
    for key in ("summary", "leaderboard", "cost", "outcomes"):
        assert "No agent ran on a gated task" in section(html, key), key
