"""The one restart rule of every run folder (WE runs, ground-truth MD): same run resumes, other run starts over.

A killed run resumes from what its folder holds (MD checkpoints, ``west.h5`` and segment files).
When Snakemake reruns the job because something that changes the run changed (a seed, a length, a
retrained model, a re-prepared system), the folder belongs to another run: continuing it would
silently mix the two (a cache keyed only by name, a pitfall of the published code). The first use
of a folder records the run's identity (:func:`run_identity`) in ``westbench-run.json``; a later use
with another identity clears the folder, names what changed in the log, and starts over, as
Snakemake does with outputs.

The identity is what changes the run, not where its files are: every setting, and for every
string naming an existing file (or ``<name>.npz``/``<name>.json`` beside it, as a TICA model is
named) the SHA-256 of its content instead of its path. Absolute paths of files that do not exist
count by file name. So a results folder moved elsewhere (or reached by another path) resumes,
while an input file whose content changed starts the run over.

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

import hashlib
import json
import logging
import shutil
from pathlib import Path
from typing import Iterable, Mapping

log = logging.getLogger(__name__)
RECORD = "westbench-run.json"
#: Suffixes tried after a string that names no file itself (a TICA model is named without its .npz).
COMPANIONS = ("", ".npz", ".json")
_MAX_PATH = 4096


def file_digest(path: str | Path) -> str:
    """SHA-256 of a file's content, read in blocks.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "x.txt")
    >>> _ = open(path, "w").write("abc")
    >>> file_digest(path)[:12]
    'ba7816bf8f01'
    """
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _identity(value):
    if isinstance(value, Mapping):
        return {str(k): _identity(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_identity(v) for v in value]
    if isinstance(value, Path):
        value = str(value)
    if isinstance(value, str) and 0 < len(value) < _MAX_PATH and "\n" not in value:
        files = {}
        try:
            for suffix in COMPANIONS:
                candidate = Path(value + suffix)
                if candidate.is_file():
                    files[f"sha256{suffix}"] = file_digest(candidate)
        except OSError:  # a name too long for the file system, unreadable: not a file of this run
            files = {}
        if files:
            return {"file": Path(value).name, **files}
        if value.startswith("/"):
            return Path(value).name
    return value


def run_identity(settings: Mapping) -> dict:
    """What makes a run this run: ``settings`` with each named file replaced by its name and content hash.

    Parameters
    ----------
    settings : mapping
        Everything that changes the run (JSON-like values; other values count by ``str``).

    Returns
    -------
    dict
        JSON-serializable; equal for the same settings and file contents wherever the files are.

    Examples
    --------
    >>> import tempfile, os
    >>> here, there = tempfile.mkdtemp(), tempfile.mkdtemp()
    >>> for folder in (here, there):
    ...     _ = open(os.path.join(folder, "system.xml"), "w").write("<System/>")
    >>> a = run_identity({"system": os.path.join(here, "system.xml"), "seed": 3})
    >>> a == run_identity({"system": os.path.join(there, "system.xml"), "seed": 3})
    True
    >>> _ = open(os.path.join(there, "system.xml"), "w").write("<System version='2'/>")
    >>> a == run_identity({"system": os.path.join(there, "system.xml"), "seed": 3})
    False
    """
    return json.loads(json.dumps(_identity(settings), sort_keys=True, default=str))


def _changed(previous, current, prefix=""):
    keys = set(previous) | set(current) if isinstance(previous, dict) and isinstance(current, dict) else None
    if keys is None:
        return [prefix] if previous != current else []
    out = []
    for key in sorted(keys):
        name = f"{prefix}.{key}" if prefix else key
        a, b = previous.get(key), current.get(key)
        if isinstance(a, dict) and isinstance(b, dict) and "file" not in a:
            out += _changed(a, b, name)
        elif a != b:
            out.append(name)
    return out


def reset_if_settings_changed(
    folder: str | Path, settings: Mapping, what: str = "run", clear: Iterable[str] | None = None, record: str = RECORD
) -> list[str]:
    """Record the run's identity in ``folder``; if another was recorded, clear the folder first.

    Parameters
    ----------
    folder : path
        The run folder (created if missing).
    settings : mapping
        What changes the run (:func:`run_identity` hashes the files it names).
    what : str
        The run's kind, for the log line.
    clear : iterable of str, optional
        The entries of ``folder`` that hold the run's state (removed on a change); default every
        entry but the record (a WE folder also holds Snakemake outputs, which it keeps).
    record : str
        The record's file name (a job that checks its inputs before the run it starts checks its
        settings, e.g. a ground-truth run's start structure, keeps its own record).

    Returns
    -------
    list of str
        The settings that changed (dotted keys), empty when the run resumes or is new.
    """
    folder = Path(folder)
    record = folder / record
    current = run_identity(settings)
    changed = []
    if record.exists():
        try:
            previous = json.loads(record.read_text())
        except ValueError:
            previous = {"unreadable record": True}
        changed = _changed(previous, current)
        if changed:
            log.warning(
                "%s in %s was started with other settings or input files (%s changed): starting over",
                what,
                folder,
                ", ".join(changed),
            )
            names = None if clear is None else set(clear)
            for path in folder.iterdir():
                if path.name == record.name or (names is not None and path.name not in names):
                    continue
                shutil.rmtree(path) if path.is_dir() else path.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    record.write_text(json.dumps(current, indent=2, sort_keys=True) + "\n")
    return changed
