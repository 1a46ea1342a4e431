"""What each WE worker's engine actually ran on (platform, device, captured buckets), recorded in the run folder.

Examples
--------
>>> import tempfile
>>> folder = tempfile.mkdtemp()
>>> _ = record_runtime({"platform": "CPU"}, folder)
>>> [r["platform"] for r in collect_runtime(folder)]
['CPU']
"""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path
from typing import Mapping

#: Folder of a WE run (``$WEST_SIM_ROOT``) where each worker records what its engine ran on.
RUNTIME_DIR = "engine_runtime"


def record_runtime(record: Mapping, run_dir: str | Path | None = None) -> Path | None:
    """Write what this worker's engine actually ran on (platform, device, captured buckets) to
    ``<run_dir>/engine_runtime/<host>-<pid>.json``; ``run_dir`` defaults to ``$WEST_SIM_ROOT``
    (None, and nothing written, outside a WE run)."""
    run_dir = run_dir if run_dir is not None else os.environ.get("WEST_SIM_ROOT")
    if not run_dir:
        return None
    folder = Path(run_dir) / RUNTIME_DIR
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{socket.gethostname()}-{os.getpid()}.json"
    record = {
        **record,
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "worker": os.environ.get("WM_PROCESS_INDEX"),
        "time": time.time(),
    }
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(record, sort_keys=True, default=str))
    temporary.replace(path)
    return path


def collect_runtime(run_dir: str | Path) -> list[dict]:
    """Every worker's record of a WE run (:func:`record_runtime`), oldest first."""
    folder = Path(run_dir) / RUNTIME_DIR
    records = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            records.append(json.loads(path.read_text()))
        except (OSError, ValueError):
            continue
    return sorted(records, key=lambda r: r.get("time", 0.0))
