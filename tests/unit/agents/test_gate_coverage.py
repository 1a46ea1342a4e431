"""westbench.agents.gate_coverage: which tasks' gate trials a run must run again, for every combination of tasks
changed, near misses missed, references that failed and shards (the property CI's agent tier relies on)."""

import shutil

from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.agents.gate_coverage import (
    ROTATION_SHARDS,
    gate_recorded_by,
    near_miss_key,
    near_misses_to_gate,
    shard_of,
    tasks_to_gate,
)
from westbench.agents.gate_record import gate_record

from .test_gate_record import TASKS, full_gate, make_suite


def test_a_full_gate_that_passed_covers_every_recorded_task_s_reference_and_do_nothing_trials(tmp_path):
    tasks = make_suite(tmp_path)
    record = gate_record(full_gate(tasks), tasks, tmp_path, label="abc1234")
    assert {gate_recorded_by(record, t) for t in TASKS} == {"abc1234"}
    # a task that ships no near misses is never recorded: its reference and do-nothing trials run every time
    assert tasks_to_gate(tasks, tmp_path, record, shard=None) == {
        "no-near-misses": "not in the record of a full gate that caught all its near misses"
    }
    chosen = [set(tasks_to_gate(tasks, tmp_path, record, shard=s)) - {"no-near-misses"} for s in range(6)]
    assert sorted(t for shard in chosen for t in shard) == TASKS  # the shards together name every task once


@settings(max_examples=20, deadline=None)
@given(
    changed=st.sets(st.sampled_from(TASKS)),
    missed=st.sets(st.sampled_from(TASKS)),
    failed=st.sets(st.sampled_from(TASKS)),
    shard=st.integers(min_value=0, max_value=10**9),
)
def test_every_task_runs_now_or_passed_the_gate_at_its_current_inputs_in_the_recorded_run(
    tmp_path_factory, changed, missed, failed, shard
):
    """For any tasks changed after the full gate, any whose near misses it missed, any whose gate failed and any
    commit's shard: the reference and do-nothing trials run exactly for those and the shard (and the task without
    near misses); a task not chosen has its recorded digest equal to today's and a recorded passing gate; the near
    misses chosen are among the tasks chosen."""
    root = tmp_path_factory.mktemp("suite")
    tasks = make_suite(root)
    rows = [
        {**row, "near_miss_caught": 1 if row["task"] in missed else row["near_miss_caught"]}
        | ({"passed": "False"} if row["task"] in failed else {})
        for row in full_gate(tasks)
    ]
    record = gate_record(rows, tasks, root, label="abc1234")
    for task in changed:
        (tasks / task / "tests" / "test.sh").write_text("exit 3\n")
    chosen = tasks_to_gate(tasks, root, record, shard)
    in_shard = {t for t in TASKS if shard_of(t) == shard % ROTATION_SHARDS}
    assert set(chosen) == changed | missed | failed | in_shard | {"no-near-misses"}
    for task in set(TASKS) - set(chosen):
        entry = record["tasks"][task]
        assert entry["key"] == near_miss_key(tasks / task) and entry["gate"] == "abc1234"
    assert set(near_misses_to_gate(tasks, root, record, shard)) <= set(chosen)
    shutil.rmtree(root)
