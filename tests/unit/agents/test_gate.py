"""The oracle gate: every way a task can fail it, near misses and the catch rate."""

from westbench.agents.gate import oracle_gate

from .trial_records import trial


def test_gate_reports_every_way_a_task_can_fail():
    records = [
        trial("ok", "oracle", 1.0),
        trial("ok", "nop", 0.0),
        trial("weak", "oracle", 0.5),
        trial("weak", "nop", 0.0),
        trial("leaky", "oracle", 1.0),
        trial("leaky", "nop", 0.25),
        trial("broken", "oracle", 0.0, "environment_error", reason="FROM image missing"),
        trial("broken", "nop", 0.0, "environment_error", reason="FROM image missing"),
    ]
    records += [
        trial("late", "oracle", 1.0, "agent_timeout", reason="AgentTimeoutError: 60 s"),
        trial("late", "nop", 0.0),
    ]
    table = oracle_gate(records, ["ok", "weak", "leaky", "broken", "absent", "late"]).set_index("task")
    assert table["passed"].to_dict() == {
        "ok": True,
        "weak": False,
        "leaky": False,
        "broken": False,
        "absent": False,
        "late": False,
    }
    assert "did not complete: agent_timeout" in table.loc["late", "reason"]
    assert "scored 0.5" in table.loc["weak", "reason"] and "nop) scored 0.25" in table.loc["leaky", "reason"]
    assert "FROM image missing" in table.loc["broken", "reason"] and "no oracle trial" in table.loc["absent", "reason"]


def test_a_failed_reference_names_its_failed_checks_from_the_verifiers_checks_json(tmp_path):
    """A reference that scores below 1 says which checks failed in the gate's reason (a CI log carries the gate
    table, not the trial folders), read from the verifier's checks.json into the trial record."""
    import json

    from westbench.agents.harbor import agent_exit, failed_checks, verifier_detail

    checks = [{"name": f"check {i}", "passed": i % 2 == 0, "reason": f"value {i} off"} for i in range(15)]
    (tmp_path / "verifier").mkdir()
    (tmp_path / "verifier" / "checks.json").write_text(json.dumps({"checks": checks, "elapsed_s": 0.2}))
    named = failed_checks(verifier_detail(tmp_path))
    assert named == [f"check {i}: value {i} off" for i in (1, 3, 5, 7, 9)] + ["... and 2 more"]
    records = [trial("t", "oracle", 0.0, failed_checks=named), trial("t", "nop", 0.0)]
    reason = oracle_gate(records, ["t"]).loc[0, "reason"]
    assert reason.startswith("reference solution (oracle) scored 0, not 1.0 (failed: check 1: value 1 off; ")
    assert "check 9: value 9 off; ... and 2 more)" in reason
    (tmp_path / "agent").mkdir()
    (tmp_path / "agent" / "exit-code.txt").write_text("1\n")
    (tmp_path / "agent" / "oracle.txt").write_text("x" * 1000 + "MemoryError")
    crashed = trial("t", "oracle", 0.0, failed_checks=named, **agent_exit(tmp_path))
    reason = oracle_gate([crashed, trial("t", "nop", 0.0)], ["t"]).loc[0, "reason"]
    assert "its solution script exited 1; its output ends: 'xxx" in reason and reason.endswith("MemoryError')")


def test_the_gate_fails_a_task_whose_near_miss_scores_one_and_reports_the_catch_rate():
    from westbench.agents.gate import catch_rate

    records = [
        {"task": t, "agent": a, "attempt": 1, "status": s, "correctness": c}
        for t in ("caught", "hole", "broken", "none")
        for a, s, c in (("oracle", "passed", 1.0), ("nop", "failed", 0.0))
    ]
    misses = {
        "caught": [
            {"near_miss": "a", "status": "failed", "correctness": 0.8},
            {"near_miss": "b", "status": "agent_error", "correctness": 0.0},
        ],
        "hole": [
            {"near_miss": "no-posre", "status": "passed", "correctness": 1.0},
            {"near_miss": "c", "status": "failed", "correctness": 0.5},
        ],
        "broken": [{"near_miss": "d", "status": "environment_error", "correctness": 0.0, "reason": "no image"}],
    }
    table = oracle_gate(records, ["caught", "hole", "broken", "none"], near_misses=misses).set_index("task")
    assert table["passed"].tolist() == [True, False, False, True]
    assert table.loc["caught", "near_miss_caught"] == 2 and table.loc["caught", "near_miss_max"] == 0.8
    assert table.loc["hole", "near_miss_missed"] == "no-posre" and "does not catch it" in table.loc["hole", "reason"]
    assert "not graded" in table.loc["broken", "reason"] and table.loc["broken", "near_miss_caught"] == 0
    assert table.loc["none", "near_misses"] == 0 and table.loc["none", "near_miss_missed"] == ""
    assert catch_rate(table.reset_index()) == {
        "near_misses": 5,
        "caught": 3,
        "catch_rate": 0.6,
        "tasks_with_near_misses": 3,
    }
