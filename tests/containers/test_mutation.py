"""Mutation testing of the verifiers, for real: the tasks changed relative to main plus a fixed sample.

Each task's reference solution runs in its own image, every mutant (westbench.agents.mutation) goes through its
verifier, and the task must keep the suite's bar: the reference scores 1, no mutant is left ungraded, and every
surviving mutant is justified as equivalent in the task's mutants.toml (a new survivor is a hole in the verifier:
fix the verifier, or justify it). Cost: the sample takes about 1.5 min on the 2-core machine (we-weighted-rg: 19
output mutants; forcefield-edit: output mutants and six solution mutants); each changed task adds its own
(1-10 min, up to an hour for long-horizon-nacl-umbrella-pmf). ``WESTBENCH_MUTATION_TASKS`` (comma-separated) replaces
the changed tasks; at most ``MAX_CHANGED`` changed tasks run, the quickest first (by their agent time limit).
"""

import os
import subprocess

import pytest

from westbench.agents.mutation import load_equivalents
from westbench.agents.mutation_run import mutate_task
from westbench.agents.tasks import load_task

from .test_agents_pipeline import REPO, agents_machine  # noqa: F401 (session fixture)

pytestmark = [pytest.mark.container, pytest.mark.slow]

SAMPLE = ("we-weighted-rg", "forcefield-edit")
MAX_CHANGED = 3


def changed_tasks() -> list[str]:
    """Task folders that differ from main (committed or not), the quickest first; empty where main is unknown."""
    if os.environ.get("WESTBENCH_MUTATION_TASKS"):
        return [t for t in os.environ["WESTBENCH_MUTATION_TASKS"].split(",") if t]
    names = set()
    for base in ("main", "origin/main"):
        result = subprocess.run(
            ["git", "diff", "--name-only", f"{base}...HEAD", "--", "tasks"], cwd=REPO, capture_output=True, text=True
        )
        if result.returncode == 0:
            names = {line.split("/")[1] for line in result.stdout.splitlines() if line.count("/") >= 2}
            break
    status = subprocess.run(["git", "status", "--porcelain", "--", "tasks"], cwd=REPO, capture_output=True, text=True)
    names |= {line[3:].split("/")[1] for line in status.stdout.splitlines() if line[3:].count("/") >= 2}
    present = [n for n in sorted(names) if (REPO / "tasks" / n / "task.toml").is_file() and n not in SAMPLE]
    present.sort(key=lambda n: load_task(REPO / "tasks" / n).agent_timeout_s or 3600)
    return present[:MAX_CHANGED]


@pytest.mark.parametrize("task", [*SAMPLE, *changed_tasks()])
def test_the_verifier_kills_every_mutant_or_the_task_justifies_it(agents_machine, task, tmp_path_factory):  # noqa: F811
    record = mutate_task(REPO / "tasks" / task, tmp_path_factory.mktemp(f"mutation-{task}"))
    assert record["oracle"]["correctness"] == 1.0, record["oracle"]
    # nothing delivered scores 0 with the oracle's whole list of checks
    assert record["nop"]["correctness"] == 0.0 and record["nop"]["checks"] == record["oracle"]["checks"], record["nop"]
    rows = record["mutants"]
    assert rows and not [r for r in rows if str(r["outcome"]).startswith("error")], rows
    equivalent = load_equivalents(REPO / "tasks" / task)
    unjustified = [r["mutant"] for r in rows if not r["killed"] and r["mutant"] not in equivalent]
    assert not unjustified, f"{task}: surviving mutants, neither killed nor justified in mutants.toml: {unjustified}"
    assert not record["equivalent_unknown"], f"{task}: mutants.toml justifies mutants the harness no longer makes"
    assert not record["equivalent_killed"], f"{task}: mutants.toml justifies mutants the verifier kills"
    killed = sum(r["killed"] for r in rows)
    assert killed / (len(rows) - sum(r["equivalent"] for r in rows)) >= 0.95


def test_a_container_left_by_a_killed_run_is_removed_by_the_next_one(agents_machine):  # noqa: F811
    """A run killed before its clean-up (``kill -9``, pytest-timeout) leaves its container running; the next
    container a run starts on this host first removes every mutation container whose owning process is gone."""
    import time

    from westbench.agents.mutation_run.containers import (
        OWNER_LABEL,
        Container,
        Engine,
        build_image,
        process_identity,
    )

    engine, task = Engine(), load_task(REPO / "tasks" / "we-weighted-rg")
    image = build_image(task, engine)
    gone = subprocess.Popen(["sleep", "60"])
    dead_owner = process_identity(gone.pid)
    gone.kill()
    gone.wait()
    orphan = f"westbench-mutation-orphan-{int(time.time())}"
    engine.run("run", "-d", "--name", orphan, "--label", f"{OWNER_LABEL}={dead_owner}", "--network", "none",
               "--entrypoint", "sleep", image, "infinity")  # fmt: skip
    try:
        with Container(engine, image, task, "sweep") as container:
            names = engine.run("ps", "-a", "--format", "{{.Names}}").stdout.split()
            assert container.name in names and orphan not in names
            owner = engine.run("inspect", "--format", f'{{{{index .Config.Labels "{OWNER_LABEL}"}}}}', container.name)
            assert owner.stdout.strip() == process_identity()
        assert container.name not in engine.run("ps", "-a", "--format", "{{.Names}}").stdout.split()
    finally:
        engine.run("rm", "-f", orphan, check=False)
