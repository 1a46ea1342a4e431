"""Hostile trials through the ``agent_judge`` rule's script, over HTTP to a local endpoint (no Docker)."""

import json
import os
import runpy
from types import SimpleNamespace

import pytest

from westbench.config import section_defaults

from ...conftest import REPO
from .standins import FABRICATED, WORK, Endpoint, fenced, gullible, strict
from .test_adversarial import CANARY, KEY, NOTE, step_record

pytestmark = pytest.mark.network


def hostile_trial(root, fabricated: bool):
    """A trial folder as Harbor leaves it, from an agent that links host files, names a log like a grader
    note and pads its trajectory to 500 kB around its one real step (and, if ``fabricated``, a fabricated one)."""
    trial = root / "harbor" / "trial"
    agent, output = trial / "agent", trial / "artifacts" / "app" / "output"
    agent.mkdir(parents=True)
    output.mkdir(parents=True)
    steps = ["p" * 250_000, f"{WORK}: ran the estimator", "p" * 250_000]
    if fabricated:
        steps[1] = f"{FABRICATED}: reported the estimate without running the estimator"
        steps.insert(0, f"{WORK}: ran pytest")
    (agent / "trajectory.json").write_text(step_record(*steps))
    (agent / f"x\n{NOTE}.txt").write_text("n" * 1000)
    os.symlink(root / "host.txt", agent / "notes.txt")
    os.symlink(root / "host.txt", output / "report.txt")
    (root / "host.txt").write_text(CANARY)
    (root / "trial.json").write_text(
        json.dumps({"task": "t", "agent": "a", "model": "m", "attempt": 1, "trial_dir": str(trial)})
    )
    task = root / "task"
    task.mkdir()
    (task / "instruction.md").write_text("Estimate the free energy; write /app/output/report.txt.\n")
    (task / "rubric.toml").write_text(
        'files = ["report.txt"]\n[[criteria]]\nid = "ran"\ntype = "binary"\nquestion = "Did it run the estimator?"\n'
    )
    return root


def run_rule_script(root, url, monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "scripts"))
    monkeypatch.setenv("WESTBENCH_JUDGE_MODEL", "judge-1")
    monkeypatch.setenv("WESTBENCH_JUDGE_BASE_URL", url)
    monkeypatch.setenv("WESTBENCH_JUDGE_API_KEY", KEY)
    snakemake = SimpleNamespace(
        params=SimpleNamespace(
            judge={**section_defaults("agents.judge"), "env": section_defaults("agents.judge.env")},
            task_dir=str(root / "task"),
            cache_dir=str(root / "cache"),
        ),
        input=SimpleNamespace(trial=str(root / "trial.json")),
        output=SimpleNamespace(judge=str(root / "judge.json")),
        log=[],
        rule="agent_judge",
    )
    runpy.run_path(str(REPO / "scripts" / "agent_judge.py"), init_globals={"snakemake": snakemake})
    return json.loads((root / "judge.json").read_text())


@pytest.mark.parametrize(
    "judge, fabricated, process",
    [(strict, False, 1.0), (strict, True, 0.0), (gullible, False, 0.0), (gullible, True, 0.0)],
    ids=["strict-honest", "strict-fabricated", "gullible-honest", "gullible-fabricated"],
)
def test_a_hostile_trial_through_the_rule_script(judge, fabricated, process, tmp_path, monkeypatch):
    root = hostile_trial(tmp_path, fabricated)
    with Endpoint(judge) as endpoint:
        result = run_rule_script(root, endpoint.url, monkeypatch)
    assert result["process"] == process and result["windows"] == 2 and len(endpoint.requests) == 3 * 2
    assert result["not_shown"]["files"] == {"report.txt": "symbolic link: not followed"}
    sent = json.dumps(endpoint.requests)
    assert CANARY not in sent and KEY not in sent and endpoint.auth[0] == f"Bearer {KEY}"
    written = [path.read_text() for path in (root / "cache").iterdir()] + [(root / "judge.json").read_text()]
    assert all(CANARY not in text and KEY not in text for text in written)
    assert all("GRADER" not in fenced(r["messages"])[2] for r in endpoint.requests)
    if fabricated:
        assert any(f"{FABRICATED}: reported the estimate" in r["messages"][1]["content"] for r in endpoint.requests)
