"""The JSON records every job writes (summaries, run records, metrics): one format, one writer.

Examples
--------
>>> import json, tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "sub" / "summary.json"
>>> write_json({"b": 1, "a": [1.5, None]}, path)
>>> path.read_text().splitlines()[:3]
['{', '  "a": [', '    1.5,']
>>> json.loads(path.read_text())
{'a': [1.5, None], 'b': 1}
"""

from __future__ import annotations

import json
from pathlib import Path

from westbench.io.atomic import write_text


def write_json(data: object, path: str | Path) -> None:
    """Write ``data`` as indented JSON with sorted keys (the format of every westbench summary), creating the
    folder; atomically (:mod:`westbench.io.atomic`): a failed write leaves the previous file, never half of one."""
    write_text(path, json.dumps(data, indent=2, sort_keys=True) + "\n")
