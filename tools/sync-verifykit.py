"""Copy the verifier helper (src/westbench/agents/verifykit.py) into every task's tests/ folder.

Run after editing verifykit.py: `python3 tools/sync-verifykit.py`. A unit test fails while a copy differs.
"""

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src" / "westbench" / "agents" / "verifykit.py"

for copy in sorted(ROOT.glob("tasks/*/tests/verifykit.py")):
    if copy.read_bytes() != SOURCE.read_bytes():
        shutil.copyfile(SOURCE, copy)
        print("updated", copy.relative_to(ROOT))
