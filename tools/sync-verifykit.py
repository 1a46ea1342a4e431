"""Copy the verifier helpers into the tasks' tests/ folders: src/westbench/agents/verifykit.py into every task's that
has a copy or whose verify.py imports it, src/westbench/agents/lammpskit.py into every task built FROM the LAMMPS
image's.

Run after editing either: `python3 tools/sync-verifykit.py`. A unit test fails while a copy differs or is missing.
"""

import re
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ROOT / "src" / "westbench" / "agents"
#: The image whose tasks' verifiers run LAMMPS (tasks/*/environment/Dockerfile FROM it) get lammpskit.py too.
LAMMPS_IMAGE = "westbench/lammps-base"


def uses_lammps(task: Path) -> bool:
    dockerfile = task / "environment" / "Dockerfile"
    return dockerfile.is_file() and bool(re.search(rf"^FROM {LAMMPS_IMAGE}:", dockerfile.read_text(), re.M))


def imports_helper(tests: Path, module: str) -> bool:
    """Whether the task's verifier imports ``module`` (a new task written against the helper, not yet given it)."""
    verify = tests / "verify.py"
    pattern = rf"^\s*(from {module} import|import {module}\b)"
    return verify.is_file() and bool(re.search(pattern, verify.read_text(errors="replace"), re.M))


for tests in sorted(ROOT.glob("tasks/*/tests")):
    helpers = ["verifykit.py"] + (["lammpskit.py"] if uses_lammps(tests.parent) else [])
    for name in helpers:
        copy = tests / name
        if name == "verifykit.py" and not copy.exists() and not imports_helper(tests, "verifykit"):
            continue  # a dropped-in task that does not use the helper is not ours to change
        if not copy.exists() or copy.read_bytes() != (LIBRARY / name).read_bytes():
            shutil.copyfile(LIBRARY / name, copy)
            print("updated", copy.relative_to(ROOT))
