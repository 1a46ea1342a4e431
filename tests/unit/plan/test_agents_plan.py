"""The agent benchmark's plan from config dicts: its tasks, runs and trials, the paths of its files (one owner:
westbench.plan.layout.AgentsLayout) and the config errors it raises before any job runs."""

import json
import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.errors import ConfigError
from westbench.plan.layout import AgentsLayout

from .conftest import plan_with

IDS = st.text(string.ascii_lowercase + string.digits + "-", min_size=1, max_size=8)


def task(root, name, timeout=None, near_misses=()):
    """A task folder under ``root`` (task.toml, its agent timeout, near misses with their one-line why.md)."""
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "task.toml").write_text(f"[agent]\ntimeout_sec = {timeout}\n" if timeout else "")
    for near_miss in near_misses:
        (folder / "near_misses" / near_miss).mkdir(parents=True)
        (folder / "near_misses" / near_miss / "solve.sh").write_text("#!/bin/bash\n")
        (folder / "near_misses" / near_miss / "why.md").write_text("Leaves a file out.\n")
    return folder


@pytest.fixture
def tasks_dir(tmp_path):
    root = tmp_path / "tasks"
    task(root, "md-setup", timeout=2400, near_misses=("no-posre",))
    task(root, "we-rate")
    return root


def agents(tasks_dir, **changes):
    return {"tasks_dir": str(tasks_dir), **changes}


AGENTS = [{"name": "oracle"}, {"name": "nop"}, {"name": "terminus-2", "models": ["openai/gpt-4o", "x/y"]}]


def test_the_trials_are_every_task_run_and_attempt(tasks_dir):
    plan = plan_with(agents=agents(tasks_dir, agents=AGENTS, attempts=2)).agents
    assert plan.tasks == ["md-setup", "we-rate"]
    assert plan.runs == [("oracle", "none"), ("nop", "none"), ("terminus-2", "openai--gpt-4o"), ("terminus-2", "x--y")]
    trials = plan.trials()
    assert len(trials) == 2 * 4 * 2 and len(set(trials)) == len(trials)
    assert trials[0] == "results/agents/trials/md-setup/oracle/none/1/trial.json"
    assert plan.trials(name="judge.json") == [path.replace("trial.json", "judge.json") for path in trials]
    assert plan.gate_trials() == [
        f"results/agents/trials/{t}/{a}/none/1/trial.json" for t in ("md-setup", "we-rate") for a in ("oracle", "nop")
    ]
    assert plan.near_miss_trials() == ["results/agents/near_misses/md-setup/no-posre/trial.json"]
    assert plan.near_miss_trials("we-rate") == []


def test_selection_keeps_the_gate_agents_and_matches_task_patterns(tasks_dir):
    plan = plan_with(
        agents=agents(tasks_dir, agents=AGENTS, select={"tasks": ["we-*"], "agents": ["terminus-*"]})
    ).agents
    assert plan.tasks == ["we-rate"]
    assert [agent for agent, _ in plan.runs] == ["oracle", "nop", "terminus-2", "terminus-2"]


@pytest.mark.parametrize("assess_gate", [False, True])
def test_process_scorecards_go_to_the_agents_under_test_unless_the_gate_is_assessed(tasks_dir, assess_gate):
    plan = plan_with(agents=agents(tasks_dir, agents=AGENTS, process={"assess_gate_agents": assess_gate})).agents
    scored = {path.split("/")[4] for path in plan.process_trials()}
    assert scored == ({"oracle", "nop", "terminus-2"} if assess_gate else {"terminus-2"})
    assert all(path.endswith("/process.json") for path in plan.process_trials())
    assert plan.process_trials("md-setup") == [p for p in plan.process_trials() if "/md-setup/" in p]
    assert plan.process_trials("not-selected") == []


def test_a_trial_gets_its_own_agent_entry_and_model_only(tasks_dir):
    plan = plan_with(agents=agents(tasks_dir, agents=AGENTS)).agents
    run = plan.trial_run("terminus-2", "x--y")
    assert run["model"] == "x/y" and "models" not in run["agent"] and run["agent"]["id"] == "terminus-2"
    with pytest.raises(ConfigError, match=r"no agent 'claude' with model 'none' in agents\.agents"):
        plan.trial_run("claude", "none")


def test_longest_tasks_start_first_and_the_null_agents_trials_last(tasks_dir):
    plan = plan_with(agents=agents(tasks_dir, default_agent_timeout_s=600)).agents
    assert plan.priority("md-setup", "oracle") == 40  # 2400 s of task.toml
    assert plan.priority("we-rate", "oracle") == 10  # agents.default_agent_timeout_s
    assert plan.priority("md-setup", "nop") == 0 and plan.priority("md-setup") == 40


@pytest.mark.parametrize("mutation", [False, True])
def test_mutation_scores_and_the_pages_mutation_inputs_only_when_the_gate_runs_mutation(tasks_dir, mutation):
    plan = plan_with(agents=agents(tasks_dir, gate={"mutation": mutation})).agents
    assert plan.mutation_results() == ["results/agents/mutation/md-setup.json", "results/agents/mutation/we-rate.json"]
    assert plan.mutation_scores() == (["results/agents/mutation_score.csv"] if mutation else [])
    assert set(plan.page_optional_inputs().values()) == (
        {"results/agents/mutation.csv", "results/agents/mutation_score.csv"} if mutation else set()
    )


def test_no_tasks_folder_plans_no_trials(tmp_path):
    plan = plan_with(agents={"tasks_dir": str(tmp_path / "absent")}).agents
    assert plan.tasks == [] and plan.trials() == [] and plan.gate_trials() == []


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"gate": {"reference": "oracel"}}, r"agents\.gate\.reference is 'oracel'.*add \{name: oracel\} to agents"),
        ({"agents": [{"name": "oracle"}, {"name": "nop"}, {"name": "x:nop"}]}, r"two entries have id 'nop'"),
        ({"select": {"agents": ["claude"]}}, r"agents\.select\.agents names 'claude'.*\(ids: oracle, nop\)"),
        ({"select": {"tasks": ["md-setpu"]}}, r"agents\.select\.tasks names 'md-setpu'.*fix the name"),
    ],
)
def test_a_bad_agents_section_is_a_config_error_naming_the_key_and_the_fix(tasks_dir, changes, message):
    with pytest.raises(ConfigError, match=message):
        plan_with(agents=agents(tasks_dir, **changes))


def test_a_malformed_near_miss_is_a_config_error_naming_its_file(tasks_dir):
    (tasks_dir / "we-rate" / "near_misses" / "no-why").mkdir(parents=True)
    (tasks_dir / "we-rate" / "near_misses" / "no-why" / "solve.sh").write_text("#!/bin/bash\n")
    with pytest.raises(ConfigError, match=r"no-why/why\.md: write one line"):
        plan_with(agents=agents(tasks_dir))
    assert plan_with(agents=agents(tasks_dir, gate={"near_misses": False})).agents.near_misses == {
        "md-setup": [],
        "we-rate": [],
    }


def test_a_list_of_tasks_runs_those_tasks_near_misses_only_and_an_unknown_name_is_a_config_error(tasks_dir):
    task(tasks_dir, "we-flux", near_misses=("rate-not-flux",))
    plan = plan_with(agents=agents(tasks_dir, gate={"near_misses": ["we-flux", "we-rate"]})).agents
    assert plan.near_miss_tasks == ["we-flux", "we-rate"]
    assert plan.near_miss_trials() == ["results/agents/near_misses/we-flux/rate-not-flux/trial.json"]
    assert plan_with(agents=agents(tasks_dir, gate={"near_misses": []})).agents.near_miss_trials() == []
    with pytest.raises(ConfigError, match=r"agents\.gate\.near_misses names md_setup, which is not a task folder"):
        plan_with(agents=agents(tasks_dir, gate={"near_misses": ["md_setup"]}))


def test_each_job_reads_only_its_keys_of_the_section(tasks_dir):
    params = plan_with(agents=agents(tasks_dir, process={"correlation_min_trials": 7})).params
    assert list(params.agent_trial()) == ["environment", "harbor", "default_agent_timeout_s", "timeout_margin_s"]
    assert params.agent_failures() == {"bootstrap_resamples": 2000, "correlation_min_trials": 7}
    assert set(params.agent_leaderboard()) == {"attempts", "pass_at_k", "bootstrap_resamples"}


@settings(max_examples=30, deadline=None)
@given(task_name=IDS, agent=IDS, model=IDS, attempt=st.integers(1, 9), name=IDS)
def test_a_pattern_filled_in_is_the_path_of_those_ids(task_name, agent, model, attempt, name):
    fill = {"task": task_name, "agent": agent, "model": model, "attempt": attempt, "near_miss": name, "name": name}
    calls = [
        (AgentsLayout.trial, ("{task}", "{agent}", "{model}", "{attempt}"), (task_name, agent, model, attempt)),
        (AgentsLayout.near_miss, ("{task}", "{near_miss}"), (task_name, name)),
        (AgentsLayout.mutation, ("{task}",), (task_name,)),
        (AgentsLayout.harbor, ("{task}", "{agent}", "{model}", "{attempt}"), (task_name, agent, model, attempt)),
        (AgentsLayout.task_done, ("{task}",), (task_name,)),
        (AgentsLayout.log, ("trial_{task}_{agent}",), (f"trial_{task_name}_{agent}",)),
    ]
    for method, pattern, ids in calls:
        assert method(*pattern).format(**fill) == method(*ids), method.__name__
        assert method(*ids).startswith("results/agents/")


def unconstrained(pattern) -> str:
    return re.sub(r"\{(\w+),[^}]*\}", r"{\1}", str(pattern))


def test_the_agent_rules_outputs_are_the_layouts_patterns(workflow):
    layout = AgentsLayout()
    outputs = {
        name: unconstrained(workflow.get_rule(name).output[0])
        for name in ("agent_trial", "agent_near_miss", "agent_mutation", "agent_judge", "agent_report", "agents_task")
    }
    assert outputs == {
        "agent_trial": layout.trial("{task}", "{agent}", "{model}", "{attempt}"),
        "agent_near_miss": layout.near_miss("{task}", "{near_miss}"),
        "agent_mutation": layout.mutation("{task}"),
        "agent_judge": layout.trial("{task}", "{agent}", "{model}", "{attempt}", "judge.json"),
        "agent_report": layout.page,
        "agents_task": layout.task_done("{task}"),
    }
    trial_log = unconstrained(workflow.get_rule("agent_trial").log[0])
    assert trial_log == layout.log("trial_{task}_{agent}_{model}_{attempt}")


def test_changed_runs_the_near_misses_the_record_does_not_hold_and_names_the_gate_that_caught_the_rest(tmp_path):
    """agents.gate.near_misses `changed` (the default): a task whose near misses the recorded full gate caught at
    today's inputs is not rerun and its gate is named; an edited, a new or a shard's task is rerun, with why."""
    from westbench.agents.gate_coverage import shard_of
    from westbench.agents.gate_record import gate_record
    from westbench.plan import Plan

    from .conftest import config_with

    tasks_dir = tmp_path / "tasks"
    for name in ("kept", "edited", "unrecorded"):
        task(tasks_dir, name, near_misses=("wrong",))
    task(tasks_dir, "none-shipped")
    caught = [{"task": t, "near_misses": 1, "near_miss_caught": 1} for t in ("kept", "edited")]
    record = {"commit": "abc1234", "updated": {"edited": "def5678"}, **gate_record(caught, tasks_dir, tmp_path)}
    (tmp_path / "record.json").write_text(json.dumps(record))
    (tasks_dir / "edited" / "near_misses" / "wrong" / "solve.sh").write_text("#!/bin/bash\necho edited\n")

    def plan(**gate):
        section = agents(tasks_dir, gate={"near_misses": "changed", "record": "record.json", "shard": None, **gate})
        return Plan.from_config(config_with(agents=section), root=tmp_path).agents

    chosen = plan()
    assert chosen.near_miss_reasons == {
        "edited": "changed since the recorded full gate",
        "unrecorded": "not in the record of a full gate that caught all its near misses",
    }
    assert chosen.near_misses_recorded == {"kept": "abc1234"}
    assert chosen.near_miss_trials() == [
        "results/agents/near_misses/edited/wrong/trial.json",
        "results/agents/near_misses/unrecorded/wrong/trial.json",
    ]
    shard = plan(shard=shard_of("kept") + 6)  # a shard number wraps at the record's shard count
    assert shard.near_miss_reasons["kept"].startswith("rotation shard") and shard.near_misses_recorded == {}
    (tmp_path / "docker").mkdir()  # the trial environment changed: nothing recorded holds
    (tmp_path / "docker" / "Dockerfile").write_text("FROM debian\n")
    assert set(plan().near_miss_reasons) == {"kept", "edited", "unrecorded"} and plan().near_misses_recorded == {}
    assert plan(record="missing.json").near_misses_recorded == {}  # no record: every task's near misses run
    (tmp_path / "record.json").write_text("{not json")
    with pytest.raises(ConfigError, match=r"agents\.gate\.record: .*record\.json is not JSON.*rerun a full gate"):
        plan()
