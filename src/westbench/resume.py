"""A run folder resumes only under the settings that started it; otherwise it starts over.

A killed run (ground-truth MD) resumes from its checkpoints. When Snakemake reruns
the job because its settings changed (seed, lengths, intervals), the old
checkpoints belong to another run: continuing them would silently mix the two (a
cache keyed only by name, a pitfall of the published code). The first use of a
folder records its settings; a later use with other settings clears the folder,
names what changed in the log, and starts over, as Snakemake does with outputs.
Absolute paths are compared by file name so that a results folder can be moved.

Examples
--------
>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> reset_if_settings_changed(folder, {"seed": 1, "model": "/a/b/model.npz"})
[]
>>> (folder / "chunk_000000.npz").write_bytes(b"frames")
6
>>> reset_if_settings_changed(folder, {"seed": 1, "model": "/moved/model.npz"})
[]
>>> reset_if_settings_changed(folder, {"seed": 2, "model": "/a/b/model.npz"}), (folder / "chunk_000000.npz").exists()
(['seed'], False)
"""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path
from typing import Mapping

log = logging.getLogger(__name__)
RECORD = "westbench-run.json"


def _portable(value):
    if isinstance(value, Mapping):
        return {str(k): _portable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_portable(v) for v in value]
    if isinstance(value, str) and value.startswith("/"):
        return Path(value).name
    return value


def reset_if_settings_changed(folder: str | Path, settings: Mapping, what: str = "run") -> list[str]:
    """Record ``settings`` in ``folder``; if others were recorded, empty the folder first. Returns the changed keys."""
    folder = Path(folder)
    record = folder / RECORD
    current = json.loads(json.dumps(_portable(settings), sort_keys=True, default=str))
    changed = []
    if record.exists():
        previous = json.loads(record.read_text())
        changed = sorted(k for k in set(previous) | set(current) if previous.get(k) != current.get(k))
        if changed:
            log.warning("%s in %s was started with other settings (%s changed): starting over", what, folder,
                        ", ".join(changed))
            for path in folder.iterdir():
                shutil.rmtree(path) if path.is_dir() else path.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    record.write_text(json.dumps(current, indent=2, sort_keys=True) + "\n")
    return changed
