"""The delivered files a mutation may edit: which are text, which the task asks for (its contract or instruction)."""

from __future__ import annotations

import fnmatch
from pathlib import Path

_TEXT_SUFFIXES = {
    ".json", ".csv", ".tsv", ".md", ".txt", ".mdp", ".cfg", ".yaml", ".yml", ".ndx", ".itp", ".top", ".xml",
}  # fmt: skip


def read_text(path: Path) -> str | None:
    """A delivered file's text, or None for a binary one."""
    if path.suffix.lower() not in _TEXT_SUFFIXES | {".pdb", ".gro", ".xvg", ".dat", ".log", ".sh", ".py"}:
        try:
            head = path.read_bytes()[:4096]
        except OSError:
            return None
        if b"\0" in head:
            return None
    try:
        return path.read_text()
    except (UnicodeDecodeError, OSError):
        return None


def deliverable_filter(task_path: str | Path, contract=None):
    """Which delivered files (relative to the artifact folder) the task asks for.

    The ``file`` globs of the contract's items when it gives any; else the files whose name (or relative path)
    instruction.md mentions.

    >>> import tempfile, pathlib
    >>> task = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (task / "instruction.md").write_text("Write `/app/output/rg.csv`.")
    >>> keep = deliverable_filter(task)
    >>> keep("rg.csv"), keep("mdout.mdp")
    (True, False)
    """
    globs = [g for item in (contract.items if contract else ()) for g in item.files()]
    if globs:
        return lambda relative: any(fnmatch.fnmatchcase(relative, g) for g in globs)
    instruction = (Path(task_path) / "instruction.md").read_text()
    return lambda relative: relative in instruction or Path(relative).name in instruction
