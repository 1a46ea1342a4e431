"""A step record the agent made unreadable never lets the judge grade the agent's other logs instead.

Issue 52 (item 4): with ``agent/trajectory.json`` a symlink, hard link, fifo, folder, binary or non-UTF-8 file
and a forged log beside it, the judge used to grade the forged log (process 1.0). Now the evidence is
incomplete, the reason names the file and what is wrong, nothing is sent and the process is not met; a fifo
never blocks the read. And windows combine so that padding cannot raise a verdict, with every window seeing
the claims and failures of the whole trajectory.
"""

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from westbench.agents.atif import read_trajectory
from westbench.agents.judge import JudgeSettings, deliverable_texts, gather, judge_trial, trajectory_parts

from .standins import FABRICATED, WORK, Recorder, fenced, shown_text, strict

RUBRIC = {"files": ["report.txt"], "criteria": [{"id": "ran", "type": "binary", "question": "Did it run the checks?"}]}
FORGED = f"{WORK}: ran pytest, 12 passed (forged log)"


def record(*messages):
    return json.dumps({"schema_version": "ATIF-v1.2", "steps": [{"source": "agent", "message": m} for m in messages]})


def plant_link(path, host):
    os.symlink(host / "work.json", path)


def plant_hard_link(path, host):
    os.link(host / "work.json", path)


def plant_fifo(path, host):
    os.mkfifo(path)


def plant_folder(path, host):
    path.mkdir()
    (path / "steps.json").write_text(record(WORK))


def plant_binary(path, host):
    path.write_bytes(record(WORK).encode() + b"\0")


def plant_latin1(path, host):
    path.write_bytes(record(f"{WORK} r-sultat").replace("r-sultat", "r\xe9sultat").encode("latin-1"))


#: Each bad step record, and the words its reason must hold.
BAD = {
    "symlink": (plant_link, "symbolic link"),
    "hard link": (plant_hard_link, "hard link"),
    "fifo": (plant_fifo, "fifo"),
    "folder": (plant_folder, "a folder"),
    "binary": (plant_binary, "binary"),
    "non-UTF-8": (plant_latin1, "not UTF-8"),
}


def hostile_trial(root, name, plant):
    """A trial whose step record ``name`` is planted bad, with a forged log showing the work beside it."""
    host, trial = root / "host", root / "trial"
    host.mkdir()
    (host / "work.json").write_text(record(WORK))
    (trial / "agent").mkdir(parents=True)
    (trial / "artifacts" / "app" / "output").mkdir(parents=True)
    (trial / "artifacts" / "app" / "output" / "report.txt").write_text("result: 42")
    if name != "agent/trajectory.json":  # a continuation: the first record is honest, the next one bad
        (trial / "agent" / "trajectory.json").write_text(record(WORK))
    plant(trial / name, host)
    (trial / "agent" / "notes.txt").write_text(FORGED)
    return trial


def judged(trial):
    configured = JudgeSettings("judge", "http://unused", None, repeats=1)
    judge = Recorder(strict)
    trajectory = trajectory_parts(trial, configured.file_limit_bytes)
    files = deliverable_texts(trial, RUBRIC["files"], limit_bytes=configured.file_limit_bytes)
    return judge_trial(RUBRIC, "Run the checks.", trajectory, files, configured, None, call=judge), judge


@pytest.mark.timeout(30)  # a fifo opened for reading would block here: it must not be opened
@pytest.mark.parametrize("kind", list(BAD))
def test_a_bad_step_record_is_not_met_with_its_reason_and_the_forged_log_is_not_graded(kind, tmp_path):
    plant, words = BAD[kind]
    result, judge = judged(hostile_trial(tmp_path, "agent/trajectory.json", plant))
    assert result["process"] == 0.0 and result["all_passed"] is False
    assert judge.payloads == [] and result["calls_per_criterion"] == 0  # the forged log reached no judge
    (reason,) = result["incomplete"]
    assert "agent/trajectory.json" in reason and words in reason
    assert reason in result["criteria"][0]["judge_errors"][0]
    # the honest trial with the same forged log beside it is judged, and passes: the refusal is the record's
    (tmp_path / "ok").mkdir()
    honest = hostile_trial(tmp_path / "ok", "agent/trajectory.json", lambda path, host: path.write_text(record(WORK)))
    assert judged(honest)[0]["process"] == 1.0


@pytest.mark.timeout(30)
@pytest.mark.parametrize("kind", list(BAD))
def test_the_trajectory_reader_refuses_the_same_records(kind, tmp_path):
    trial = hostile_trial(tmp_path, "agent/trajectory.json", BAD[kind][0])
    found, state = read_trajectory(trial)
    assert found is None and state.startswith("agent/trajectory.json: ")


@pytest.mark.timeout(60)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(list(BAD)), name=st.sampled_from(["trajectory.json", "trajectory.cont-1.json"]))
def test_any_bad_step_record_under_any_record_name_is_never_a_pass(kind, name, tmp_path_factory):
    trial = hostile_trial(tmp_path_factory.mktemp("t"), f"agent/{name}", BAD[kind][0])
    result, judge = judged(trial)
    assert result["process"] == 0.0 and judge.payloads == []
    assert any(f"agent/{name}" in reason and BAD[kind][1] in reason for reason in result["incomplete"])


def test_a_claim_and_the_output_contradicting_it_are_seen_together_windows_apart():
    """Both lie in different windows; every window's index holds both lines."""
    claim, failure = "ALL TESTS PASSED", "Traceback (most recent call last): AssertionError in test_energy"
    text = record(f"{claim}", "p" * 20_000, failure)
    evidence = gather("", {"agent/trajectory.json": text}, {}, max_chars=8000, max_windows=20)
    assert len(evidence.windows) > 3
    for index in range(len(evidence.windows)):
        document = json.loads(evidence.document(index))
        assert any(claim in entry for entry in document["index"]) and any(
            failure in entry for entry in document["index"]
        )
        assert len(evidence.document(index)) <= 8000


def lenient(settings, payload):
    """A judge that never answers ``against``: met where it sees the work claimed, unmet where it sees a failure."""
    seen = shown_text(fenced(payload)[1])
    return json.dumps({"value": int(WORK in seen and FABRICATED not in seen), "why": "window"})


def test_padding_cannot_turn_a_fail_into_a_pass_with_a_judge_that_never_says_against():
    configured = JudgeSettings("judge", "http://unused", None, repeats=1, max_chars=8000, max_windows=20)
    claim = f"{WORK}: tests passed"
    contradicted = f"{FABRICATED}: exit code 1, the tests failed"
    short = record(claim, contradicted)
    padded = record(claim, "p" * 30_000, contradicted)
    for text in (short, padded):
        result = judge_trial(RUBRIC, "", {"agent/trajectory.json": text}, {}, configured, None, call=lenient)
        assert result["process"] == 0.0, result["windows"]
    # and without the index the claim window alone would have said 1: the worst window decides
    without_failure = judge_trial(
        RUBRIC, "", {"agent/trajectory.json": record(claim, "p" * 30_000)}, {}, configured, None, call=lenient
    )
    assert without_failure["windows"] > 1 and without_failure["process"] == 1.0


def test_an_unreadable_step_record_is_not_met_with_its_reason(tmp_path, monkeypatch):
    """A read error (EIO, a permission a root test cannot take away) is ``unreadable``, never a pass."""
    from westbench.agents import safe_files

    def failing(fd, count):
        raise OSError(5, "Input/output error")

    trial = hostile_trial(tmp_path, "agent/trajectory.json", lambda path, host: path.write_text(record(WORK)))
    monkeypatch.setattr(safe_files, "_read_at_most", failing)
    result, judge = judged(trial)
    assert result["process"] == 0.0 and judge.payloads == []
    assert any("agent/trajectory.json" in reason and "unreadable" in reason for reason in result["incomplete"])
