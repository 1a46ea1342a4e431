"""Trajectories made elsewhere: finding the files, naming the runs, reading their C-alpha sequence.

Shared by the imported ground truth (:mod:`westbench.groundtruth.importer`) and the external
engines (:mod:`westbench.external`), and by the rules that list their files.

Examples
--------
>>> import_names(["/data/run_b.xtc", "/data/run_a.xtc"])
['run_a', 'run_b']
>>> trajectory_files(["/data/{protein}/a.xtc"], "chignolin")
['/data/chignolin/a.xtc']

The same trajectory given twice (one file under two spellings or through a link, or two files with the same bytes)
would count as two independent runs, doubling the bootstrap's units and narrowing every interval: it is refused
(:func:`refuse_duplicate_files`), naming both files and the fix.
"""

from __future__ import annotations

import glob
import hashlib
import os
import re
from pathlib import Path
from typing import Sequence

import mdtraj
import numpy as np

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


#: Bytes read from each end of a file for its quick fingerprint: files that agree on their size and both ends are
#: then hashed whole (a trajectory's last frames differ between runs, so whole-file hashes are rarely needed).
FINGERPRINT_BYTES = 1 << 16


def _digest(path: str, size: int, whole: bool) -> str:
    """SHA-256 of the file's first and last :data:`FINGERPRINT_BYTES` (or of all of it), read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        if whole or size <= 2 * FINGERPRINT_BYTES:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        else:
            digest.update(handle.read(FINGERPRINT_BYTES))
            handle.seek(size - FINGERPRINT_BYTES)
            digest.update(handle.read(FINGERPRINT_BYTES))
    return digest.hexdigest()


def duplicate_files(files: Sequence[str]) -> list[tuple[str, str, str]]:
    """Pairs ``(first, again, how)`` among ``files`` that are one file (``how`` "the same file": one path written
    two ways, a symbolic or hard link) or two files with identical bytes ("identical content"), in the order given.
    Files that do not exist, and empty files, are not compared by content (the readers report them).

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> for name, text in (("a.xtc", "frames"), ("b.xtc", "frames"), ("c.xtc", "other")):
    ...     _ = open(os.path.join(folder, name), "w").write(text)
    >>> [(os.path.basename(a), os.path.basename(b), how) for a, b, how in duplicate_files(
    ...     [f"{folder}/a.xtc", f"{folder}/./a.xtc", f"{folder}/b.xtc", f"{folder}/c.xtc"])]
    [('a.xtc', 'a.xtc', 'the same file'), ('a.xtc', 'b.xtc', 'identical content')]
    """
    found, first_of_inode, by_ends = [], {}, {}
    for path in files:
        try:
            status = os.stat(path)
        except OSError:
            continue
        inode = (status.st_dev, status.st_ino)
        if inode in first_of_inode:
            found.append((first_of_inode[inode], str(path), "the same file"))
            continue
        first_of_inode[inode] = str(path)
        if status.st_size == 0:  # nothing to compare: the reader refuses an empty trajectory
            continue
        by_ends.setdefault((status.st_size, _digest(path, status.st_size, False)), []).append(str(path))
    for (size, _), group in by_ends.items():
        first_of_content: dict[str, str] = {}
        for path in group if len(group) > 1 else ():
            digest = _digest(path, size, True)
            if digest in first_of_content:
                found.append((first_of_content[digest], path, "identical content"))
            else:
                first_of_content[digest] = path
    return found


def refuse_duplicate_files(files: Sequence[str], key: str) -> None:
    """A :class:`TrajectoryError` naming every file given twice (:func:`duplicate_files`) and the fix in ``key``
    (the config key that lists them); nothing when each file is given once.

    >>> refuse_duplicate_files([], "external.mine.trajectories")
    """
    pairs = duplicate_files(files)
    if not pairs:
        return
    listed = "; ".join(f"{first} and {again} ({how})" for first, again, how in pairs)
    raise TrajectoryError(
        f"{key} gives the same trajectory twice: {listed}. Each file is taken as an independent run, so a "
        f"trajectory given twice would count twice (twice the bootstrap's units, intervals narrower than the data "
        f"holds). Fix: list each trajectory once in {key} (remove the second name or the copy; a glob and an "
        "explicit path can name one file twice)"
    )


def ca_sequence(topology: mdtraj.Topology, atoms: Sequence[int]) -> str:
    """One-letter codes of the residues of ``atoms`` (X for non-standard ones)."""
    return "".join(topology.atom(i).residue.code or "X" for i in atoms)


#: A residue-number range, e.g. "10-120" or "-3-45" (inclusive, every chain), as proteins[].residues writes it.
RESIDUE_RANGE = re.compile(r"\s*(-?\d+)\s*-\s*(-?\d+)\s*")


def select_residues(topology: mdtraj.Topology, residues: str | None, key: str, where: str) -> np.ndarray:
    """Indices of the atoms of the protein residues a trajectory's ``residues`` setting keeps (all when None).

    ``residues`` is an inclusive residue-number range (``"10-120"``, in every chain) or an mdtraj selection
    (``"chainid 0 and resSeq 10 to 120"``); a residue with any selected atom is kept whole. ``key`` (the config
    key) and ``where`` (the file) name the fix in errors.

    >>> top = mdtraj.Topology(); chain = top.add_chain()
    >>> for number in (5, 6, 7):
    ...     residue = top.add_residue("ALA", chain, resSeq=number)
    ...     for name, element in (("N", mdtraj.element.nitrogen), ("CA", mdtraj.element.carbon)):
    ...         _ = top.add_atom(name, element, residue)
    >>> select_residues(top, "6-7", "k", "f").tolist(), select_residues(top, "name CA and resSeq 5", "k", "f").tolist()
    ([2, 3, 4, 5], [0, 1])
    """
    protein = topology.select("protein")
    if residues is None or not str(residues).strip():
        return protein
    text = str(residues)
    numbers = RESIDUE_RANGE.fullmatch(text)
    if numbers:
        low, high = int(numbers.group(1)), int(numbers.group(2))
        chosen = [atom.index for atom in topology.atoms if low <= atom.residue.resSeq <= high]
    else:
        try:
            chosen = topology.select(text)
        except Exception as exc:  # mdtraj raises several types for a bad expression
            raise TrajectoryError(
                f'{key} {text!r} is neither a residue range ("10-120") nor an mdtraj selection '
                f"({type(exc).__name__}: {exc}): fix {key} for {where}"
            ) from None
    kept = {topology.atom(int(i)).residue.index for i in np.intersect1d(protein, chosen)}
    selected = np.array([i for i in protein if topology.atom(int(i)).residue.index in kept], dtype=int)
    if not len(selected):
        numbers = [r.resSeq for r in topology.residues if r.is_protein]
        raise TrajectoryError(
            f"{key} {text!r} selects no protein residue of {where} (its protein residues are numbered "
            f"{min(numbers) if numbers else '-'} to {max(numbers) if numbers else '-'}): fix {key}"
        )
    return selected


def range_hint(topology: mdtraj.Topology, ca: Sequence[int], expected: str) -> str:
    """A suggested ``residues`` range when the expected sequence is a stretch of the C-alphas' (else empty)."""
    found = ca_sequence(topology, ca)
    start = found.find(expected) if expected else -1
    if start < 0 or len(found) == len(expected) or found.count(expected) != 1:
        return ""
    first, last = topology.atom(int(ca[start])).residue, topology.atom(int(ca[start + len(expected) - 1])).residue
    if first.chain.index != last.chain.index:
        return ""
    if len({r.chain.index for r in topology.residues if r.is_protein}) == 1:  # a range is unambiguous
        return f'"{first.resSeq}-{last.resSeq}"'
    return f'"chainid {first.chain.index} and resSeq {first.resSeq} to {last.resSeq}"'
