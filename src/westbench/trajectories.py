"""Trajectories made elsewhere: finding the files, naming the runs, reading their C-alpha sequence.

Shared by the imported ground truth (:mod:`westbench.groundtruth.importer`) and the external
engines (:mod:`westbench.external`), and by the rules that list their files.

Examples
--------
>>> import_names(["/data/run_b.xtc", "/data/run_a.xtc"])
['run_a', 'run_b']
>>> trajectory_files(["/data/{protein}/a.xtc"], "chignolin")
['/data/chignolin/a.xtc']
"""

from __future__ import annotations

import glob
import re
from pathlib import Path
from typing import Sequence

import mdtraj

from westbench.errors import WestbenchError


class TrajectoryError(WestbenchError):
    """Trajectory files that cannot be used as given (names clash, files missing or unreadable)."""


def trajectory_files(setting: str | Sequence[str], protein: str) -> list[str]:
    """The trajectory files of a protein: a glob or list of globs, ``{protein}`` replaced; sorted, unique."""
    patterns = [setting] if isinstance(setting, str) else list(setting or [])
    files: list[str] = []
    for pattern in patterns:
        pattern = pattern.format(protein=protein)
        matched = sorted(glob.glob(pattern)) if glob.has_magic(pattern) else [pattern]
        files += [f for f in matched if f not in files]
    return sorted(files, key=lambda f: Path(f).name)


def import_names(files: Sequence[str]) -> list[str]:
    """Run ids of imported trajectories: file stems (made safe for paths), in sorted order; must be unique."""
    names = [re.sub(r"[^A-Za-z0-9_.-]", "_", Path(f).name.split(".")[0]) or "run" for f in files]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise TrajectoryError(
            f"imported trajectories share the names {duplicates}: file stems must be unique "
            "(rename the files or keep them in one folder)"
        )
    return sorted(names)


def ca_sequence(topology: mdtraj.Topology, atoms: Sequence[int]) -> str:
    """One-letter codes of the residues of ``atoms`` (X for non-standard ones)."""
    return "".join(topology.atom(i).residue.code or "X" for i in atoms)
