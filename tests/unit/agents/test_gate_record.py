"""westbench.agents.gate_record: a full gate's record, and what a later run must gate again by it
(westbench.agents.gate_coverage, whose own properties are in test_gate_coverage.py)."""

import csv
import json
import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.agents.gate_coverage import (
    ENVIRONMENT,
    ROTATION_SHARDS,
    environment_key,
    near_miss_key,
    near_misses_to_gate,
    shard_of,
    tasks_to_gate,
)
from westbench.agents.gate_record import gate_record, record_full_gate, update_record
from westbench.agents.tasks import fingerprint

from ...conftest import REPO

TASKS = [f"task-{n}" for n in range(9)]


def make_suite(root):
    """Nine tasks (task.toml, a test, two near misses each), the eight without near misses one, and an environment."""
    tasks = root / "tasks"
    for name in [*TASKS, "no-near-misses"]:
        (tasks / name / "tests").mkdir(parents=True)
        (tasks / name / "task.toml").write_text(f'[metadata]\nname = "{name}"\n')
        (tasks / name / "tests" / "test.sh").write_text("exit 0\n")
        for miss in ("off-by-one", "wrong-units") if name != "no-near-misses" else ():
            folder = tasks / name / "near_misses" / miss
            folder.mkdir(parents=True)
            (folder / "solve.sh").write_text(f"echo {miss}\n")
            (folder / "why.md").write_text(f"{miss}.\n")
    (root / "harbor_plugins").mkdir()
    (root / "harbor_plugins" / "westbench_docker.py").write_text("PLUGIN = 1\n")
    return tasks


def full_gate(tasks, caught=2, passed="True"):
    """gate.csv's rows of a full gate: every near miss run, ``caught`` of each task's two, the gate ``passed``."""
    row = {"reference_status": "passed", "passed": passed}
    return [{"task": t, "near_misses": 2, "near_miss_caught": caught, **row} for t in TASKS] + [
        {"task": "no-near-misses", "near_misses": 0, "near_miss_caught": 0, **row}
    ]


def test_a_full_gate_that_caught_everything_covers_every_task_until_something_changes(tmp_path):
    tasks = make_suite(tmp_path)
    record = gate_record(full_gate(tasks), tasks, tmp_path)
    assert sorted(record["tasks"]) == TASKS and record["rotation_shards"] == ROTATION_SHARDS
    assert all(entry["near_misses"] == 2 for entry in record["tasks"].values())
    assert near_misses_to_gate(tasks, tmp_path, record, shard=None) == {}
    # each shard names the tasks of that shard only, and the shards together name every task once
    chosen = [set(near_misses_to_gate(tasks, tmp_path, record, shard=s)) for s in range(ROTATION_SHARDS)]
    assert sorted(t for shard in chosen for t in shard) == TASKS
    assert all(shard_of(t) == s for s, names in enumerate(chosen) for t in names)


def test_a_task_with_a_near_miss_missed_or_not_run_is_left_out_of_the_record(tmp_path):
    tasks = make_suite(tmp_path)
    rows = full_gate(tasks)
    rows[0] = {**rows[0], "near_miss_caught": 1}  # one slipped
    rows[1] = {**rows[1], "near_misses": 0, "near_miss_caught": 0}  # not run (agents.gate.near_misses a list)
    record = gate_record(rows, tasks, tmp_path)
    assert sorted(record["tasks"]) == TASKS[2:]
    assert near_misses_to_gate(tasks, tmp_path, record, shard=None) == {
        t: "not in the record of a full gate that caught all its near misses" for t in TASKS[:2]
    }
    assert set(near_misses_to_gate(tasks, tmp_path, None, shard=None)) == set(TASKS)  # no record: all of them


@pytest.mark.parametrize(
    "edit",
    ["task.toml", "tests/test.sh", "near_misses/off-by-one/solve.sh", "near_misses/wrong-units/why.md", "new file"],
)
def test_any_file_a_near_miss_trial_reads_changes_the_task_s_key(tmp_path, edit):
    tasks = make_suite(tmp_path)
    before = near_miss_key(tasks / "task-3")
    path = tasks / "task-3" / ("tests/extra.py" if edit == "new file" else edit)
    path.write_text(path.read_text().strip() + " (changed)\n" if path.exists() else "x = 1\n")
    assert near_miss_key(tasks / "task-3") != before


def test_a_change_to_the_trial_environment_regates_every_task(tmp_path):
    tasks = make_suite(tmp_path)
    record = gate_record(full_gate(tasks), tasks, tmp_path)
    (tmp_path / "harbor_plugins" / "westbench_docker.py").write_text("PLUGIN = 2\n")
    chosen = near_misses_to_gate(tasks, tmp_path, record, shard=None)
    assert sorted(chosen) == TASKS and set(chosen.values()) == {
        "the trial environment changed since the recorded full gate"
    }


def test_the_environment_names_paths_that_exist_and_hashes_them_all():
    missing = [name for name in ENVIRONMENT if not (REPO / name).exists()]
    assert not missing, f"gate_coverage.ENVIRONMENT names paths the repository does not have: {missing}"
    assert environment_key(REPO) == environment_key(REPO) and len(environment_key(REPO)) == 64


@settings(max_examples=15, deadline=None)
@given(
    changed=st.sets(st.sampled_from(TASKS)),
    missed=st.sets(st.sampled_from(TASKS)),
    shard=st.integers(min_value=0, max_value=10**9),
)
def test_every_task_is_gated_now_or_covered_by_the_record_at_its_current_inputs(
    tmp_path_factory, changed, missed, shard
):
    """The property CI relies on, for any set of tasks changed after the full gate, any whose near misses it missed,
    and any commit's shard: a task is chosen exactly when it changed, was missed, or is in the shard; every task not
    chosen has a recorded key equal to its key now."""
    root = tmp_path_factory.mktemp("suite")
    tasks = make_suite(root)
    rows = [{**row, "near_miss_caught": 1} if row["task"] in missed else row for row in full_gate(tasks)]
    record = gate_record(rows, tasks, root)
    for task in changed:
        (tasks / task / "near_misses" / "off-by-one" / "solve.sh").write_text("echo changed\n")
    chosen = near_misses_to_gate(tasks, root, record, shard)
    expected = changed | missed | {t for t in TASKS if shard_of(t) == shard % ROTATION_SHARDS}
    assert set(chosen) == expected
    for task in set(TASKS) - set(chosen):
        assert record["tasks"][task]["key"] == near_miss_key(tasks / task)
    shutil.rmtree(root)


def write_results(results, tasks, gate):
    """A run's results/agents folder: gate.csv's rows, a trial.json per near miss of each gated task and one per
    reference and do-nothing trial where the row has them."""
    results.mkdir(parents=True)
    with open(results / "gate.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, ["task", "near_misses", "near_miss_caught", "reference_status", "passed"])
        writer.writeheader()
        writer.writerows(gate)
    for row in gate:
        for agent in ("oracle", "nop") if row.get("reference_status") else ():
            folder = results / "trials" / row["task"] / agent / "none" / "1"
            folder.mkdir(parents=True)
            trial = {"task": row["task"], "agent": agent, "task_fingerprint": fingerprint(tasks / row["task"])}
            (folder / "trial.json").write_text(json.dumps(trial))
        for miss in ("off-by-one", "wrong-units")[: int(row["near_misses"])]:
            folder = results / "near_misses" / row["task"] / miss
            folder.mkdir(parents=True)
            trial = {"task": row["task"], "near_miss": miss, "task_fingerprint": fingerprint(tasks / row["task"])}
            (folder / "trial.json").write_text(json.dumps(trial))
    return results


def test_a_run_whose_near_miss_trials_read_another_version_of_a_task_records_it_as_stale(tmp_path):
    """record_full_gate over a run's results/agents: the gate's rows, less the tasks whose near-miss trials read task
    files that differ from the tree's (edited after the run), which the next run then gates again."""
    tasks = make_suite(tmp_path)
    results = write_results(tmp_path / "results" / "agents", tasks, full_gate(tasks))
    (tasks / "task-4" / "tests" / "test.sh").write_text("exit 1\n")  # edited after the run
    record = record_full_gate(results, tasks, tmp_path)
    assert record["stale"] == ["task-4"] and sorted(record["tasks"]) == sorted(set(TASKS) - {"task-4"})
    assert near_misses_to_gate(tasks, tmp_path, record, shard=None) == {
        "task-4": "not in the record of a full gate that caught all its near misses"
    }


def test_a_gate_of_the_changed_tasks_alone_brings_the_record_up_to_date(tmp_path):
    """update_record: after task edits, gating those tasks alone records them again (or drops one whose near miss
    now slips), every other task keeps its entry, and a changed trial environment is refused."""
    tasks = make_suite(tmp_path)
    record = {**gate_record(full_gate(tasks), tasks, tmp_path), "rotation_shards": 3}  # written by an older policy
    for task in ("task-1", "task-2"):
        (tasks / task / "tests" / "test.sh").write_text("exit 2\n")
    assert set(near_misses_to_gate(tasks, tmp_path, record, shard=None)) == {"task-1", "task-2"}
    partial = [
        {"task": "task-1", "near_misses": 2, "near_miss_caught": 2},
        {"task": "task-2", "near_misses": 2, "near_miss_caught": 1},
    ]
    updated = update_record(record, write_results(tmp_path / "partial", tasks, partial), tasks, tmp_path, "abc123")
    assert sorted(updated["tasks"]) == sorted(set(TASKS) - {"task-2"}) and updated["updated"] == {"task-1": "abc123"}
    assert updated["rotation_shards"] == ROTATION_SHARDS  # the record takes the code's shard count on its next update
    assert updated["tasks"]["task-1"]["key"] == near_miss_key(tasks / "task-1") != record["tasks"]["task-1"]["key"]
    assert all(updated["tasks"][t] == record["tasks"][t] for t in set(TASKS) - {"task-1", "task-2"})
    assert near_misses_to_gate(tasks, tmp_path, updated, shard=None) == {
        "task-2": "not in the record of a full gate that caught all its near misses"
    }
    (tmp_path / "harbor_plugins" / "westbench_docker.py").write_text("PLUGIN = 2\n")
    with pytest.raises(ValueError, match="trial environment changed"):
        update_record(updated, tmp_path / "partial", tasks, tmp_path)


def test_a_run_of_the_reference_and_do_nothing_trials_alone_records_their_verdict(tmp_path):
    """update_record from a run whose near misses did not rerun (agents.gate.near_misses false or changed): each
    recorded task still at its recorded digest gets that run's gate verdict (set where it passed, cleared where it
    did not); a task edited since, or whose trials read other files, keeps no verdict of this run."""
    tasks = make_suite(tmp_path)
    record = gate_record(full_gate(tasks, passed=""), tasks, tmp_path)  # an older record: no gate verdicts
    assert set(tasks_to_gate(tasks, tmp_path, record, shard=None)) == {*TASKS, "no-near-misses"}
    (tasks / "task-5" / "tests" / "test.sh").write_text("exit 5\n")  # edited before the run: its digest moved
    rows = [{**row, "near_misses": 0, "near_miss_caught": 0} for row in full_gate(tasks)]
    rows[0] = {**rows[0], "passed": "False"}  # task-0's reference failed
    results = write_results(tmp_path / "run", tasks, rows)
    (tasks / "task-7" / "task.toml").write_text("edited after the run\n")  # its trials read another version
    updated = update_record(record, results, tasks, tmp_path, "abc1234")
    verdicts = {task: entry.get("gate") for task, entry in updated["tasks"].items()}
    assert verdicts == {t: None if t in ("task-0", "task-5", "task-7") else "abc1234" for t in TASKS}
    assert updated["stale"] == ["task-7"] and updated["updated"] == {}  # no near miss was recorded again
    assert tasks_to_gate(tasks, tmp_path, updated, shard=None) == {
        "task-0": "the record holds no verdict of its reference and do-nothing trials",
        "task-5": "changed since the recorded full gate",
        "task-7": "changed since the recorded full gate",
        "no-near-misses": "not in the record of a full gate that caught all its near misses",
    }
