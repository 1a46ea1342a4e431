"""What reruns a finished job stays as committed: every job's params, inputs and outputs, and every rule's script.

Snakemake reruns a job whose params (each value's ``repr``), set of input files or outputs changed, or whose
``script:`` is newer than its outputs. tests/unit/plan/dag_snapshot.json holds their digests for the embedded
default and a variant (tools/dag_params.py, ``SNAPSHOT_CONFIGS``); a change here reruns those jobs on every
finished run. Refactoring the plan or the rules must leave it unchanged; an intended change rewrites it with
``.venv/bin/python tools/dag_params.py --snapshot`` (and the commit says which jobs rerun).
"""

import importlib.util
import json

import pytest

from ..conftest import REPO


@pytest.fixture(scope="module")
def dag_params():
    spec = importlib.util.spec_from_file_location("dag_params", REPO / "tools" / "dag_params.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def differences(committed: dict, now: dict) -> list[str]:
    """Each job (or script) whose rerun triggers differ, with what differs."""
    found = []
    for job in sorted(set(committed["jobs"]) | set(now["jobs"])):
        before, after = committed["jobs"].get(job), now["jobs"].get(job)
        if before is None or after is None:
            found.append(f"{job}: {'new' if before is None else 'gone'}")
            continue
        params = sorted(
            name
            for name in set(before["params"]) | set(after["params"])
            if before["params"].get(name) != after["params"].get(name)
        )
        files = [part for part in ("input", "output") if before[part] != after[part]]
        if params or files:
            found.append(f"{job}: {', '.join([*(f'params.{name}' for name in params), *files])}")
    for script in sorted(set(committed["scripts"]) | set(now["scripts"])):
        if committed["scripts"].get(script) != now["scripts"].get(script):
            found.append(f"{script}: edited (its rule's jobs rerun: Snakemake compares the script's time)")
    return found


def test_every_job_would_be_planned_as_the_snapshot_says(dag_params, tmp_path):
    committed = json.loads(dag_params.SNAPSHOT.read_text())
    now = dag_params.snapshots(tmp_path)
    assert set(now) == set(committed) == set(dag_params.SNAPSHOT_CONFIGS)
    changed = {name: differences(committed[name], now[name]) for name in now}
    assert not any(changed.values()), (
        "these jobs would rerun on a finished run; if intended, rewrite the snapshot with "
        f".venv/bin/python tools/dag_params.py --snapshot: {json.dumps(changed, indent=1)}"
    )


def test_the_comparison_sees_a_changed_param_a_new_job_and_an_edited_script():
    job = {"params": {"seed": "a", "settings": "b"}, "input": "i", "output": "o"}
    committed = {"jobs": {"r[p=x]": job}, "scripts": {"scripts/r.py": "s"}}
    now = {
        "jobs": {"r[p=x]": {**job, "params": {"seed": "a", "settings": "c"}}, "r[p=y]": job},
        "scripts": {"scripts/r.py": "t"},
    }
    assert differences(committed, now) == [
        "r[p=x]: params.settings",
        "r[p=y]: new",
        "scripts/r.py: edited (its rule's jobs rerun: Snakemake compares the script's time)",
    ]
    assert differences(committed, committed) == []
