"""The recorded trials of known shape (fixtures/trajectories/, made by its record.py), copied where a test may use them.

* ``claims-and-fails``: Terminus-2 writes summary.json with invented numbers, never rg.csv, and ends claiming
  completion; the verifier fails it (correctness 0, rg.csv missing).
* ``recovers-and-passes``: two tool errors (a KeyError traceback, No such file or directory), then the real
  analysis, a check, a completion claim; the verifier passes it.
"""

import json
import shutil
from pathlib import Path

from ..conftest import REPO

FIXTURES = Path(__file__).parent / "fixtures" / "trajectories"
SCENARIOS = ("claims-and-fails", "recovers-and-passes")
TASK_DIR = REPO / "tasks" / "we-weighted-rg"


def recorded_trial(name: str, root: Path, agent: str | None = None, attempt: int = 1) -> tuple[Path, dict]:
    """Copy scenario ``name`` under ``root``: its trial.json (trial_dir made absolute) and its judge.json."""
    target = root / f"{name}-{agent or name}-{attempt}"
    shutil.copytree(FIXTURES / name, target)
    trial = json.loads((target / "trial.json").read_text())
    trial.update(trial_dir=str(target / "harbor"), attempt=attempt, agent=agent or trial["agent"])
    (target / "trial.json").write_text(json.dumps(trial))
    judge = json.loads((target / "judge.json").read_text())
    judge.update(attempt=attempt, agent=agent or judge["agent"])
    (target / "judge.json").write_text(json.dumps(judge))
    return target, trial
