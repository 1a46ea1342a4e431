"""Copy some atoms of a trajectory file into an XTC or DCD file chunk by chunk: memory by bytes, whatever its length.

The imported ground truth (:mod:`westbench.groundtruth.importer`) copies each run's solute this way and keeps only
the C-alphas whole.

Examples
--------
>>> import tempfile
>>> import mdtraj, numpy as np
>>> from pathlib import Path
>>> folder = Path(tempfile.mkdtemp())
>>> top = mdtraj.Topology(); chain = top.add_chain()
>>> for name in ("ALA", "GLY"):
...     _ = top.add_atom("CA", mdtraj.element.carbon, top.add_residue(name, chain))
>>> xyz = np.arange(30, dtype=np.float32).reshape(5, 2, 3)
>>> mdtraj.Trajectory(xyz, top, time=np.arange(5.0)).save_hdf5(str(folder / "in.h5"))
>>> copied = copy_atoms(folder / "in.h5", np.array([0, 1]), [1], 2, folder / "out.xtc")
>>> copied.frames_before_stride, copied.times.tolist(), copied.ca[:, 0, 0].tolist()
(5, [0.0, 2.0, 4.0], [3.0, 15.0, 27.0])
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import mdtraj
import numpy as np

from westbench.errors import WestbenchError
from westbench.geometry.features import frames_per_chunk

#: Bytes of atom positions (float32) read from a trajectory at once: a file is copied chunk by chunk, so its length
#: never sets the copy's memory (a 600-residue protein's 9,000 atoms: 620 frames a chunk). A chunk is held about
#: three times (read, strided, converted for the writer): 20,000 frames of 2,400 atoms imported at 0.45 GB peak,
#: 1.8 GB when the file was read whole (benchmarks/foreign_large.py).
CHUNK_BYTES = 64 * 2**20


@dataclass
class AtomCopy:
    """What a copy gave: the frames before the stride, the copied frames' times (ps, as the file stores them) and
    the positions (nm) of the atoms kept whole, and the first frame written (None when none was)."""

    frames_before_stride: int
    times: np.ndarray
    ca: np.ndarray
    first: mdtraj.Trajectory | None


def copy_atoms(
    trajectory: str | Path, atoms: np.ndarray, whole: list, stride: int, path: str | Path, keep=None, **load
) -> AtomCopy:
    """Stream ``atoms`` of every ``stride``-th frame of ``trajectory`` into ``path`` (.xtc or .dcd),
    :data:`CHUNK_BYTES` at a time; frames ``keep`` marks False (one flag per strided frame) are not written. The
    positions of ``whole`` (indices into ``atoms``) and the times are returned for every strided frame.

    ``load``: mdtraj's keywords (``top``). mdtraj's errors for an unreadable file are raised as they are.
    """
    chunk = frames_per_chunk(3 * len(atoms), bytes_per_value=4, budget_bytes=CHUNK_BYTES)
    n_full, kept, times, positions, first = 0, 0, [], [], None
    with mdtraj.open(str(path), "w", force_overwrite=True) as handle:
        for piece in mdtraj.iterload(str(trajectory), chunk=chunk, atom_indices=atoms, **load):
            rows = np.flatnonzero((np.arange(n_full, n_full + piece.n_frames) % stride) == 0)
            n_full += piece.n_frames
            piece = piece[rows]
            times.append(np.asarray(piece.time, dtype=np.float64))
            positions.append(piece.xyz[:, whole])
            if keep is not None:
                piece = piece[np.flatnonzero(keep[kept : kept + piece.n_frames])]
            kept += len(rows)
            if piece.n_frames:
                first = piece[0] if first is None else first
                append_frames(handle, piece)
    return AtomCopy(n_full, np.concatenate(times), np.concatenate(positions), first)


def append_frames(handle, piece: mdtraj.Trajectory) -> None:
    """Append frames to an open XTC or DCD file, as :meth:`mdtraj.Trajectory.save` writes them."""
    from mdtraj.formats import DCDTrajectoryFile, XTCTrajectoryFile
    from mdtraj.utils import in_units_of

    xyz = in_units_of(piece.xyz, "nanometers", handle.distance_unit)
    if isinstance(handle, XTCTrajectoryFile):
        vectors = piece.unitcell_vectors
        handle.write(
            xyz=xyz, time=piece.time, box=None if vectors is None else in_units_of(vectors, "nanometers", "nanometers")
        )
    elif isinstance(handle, DCDTrajectoryFile):
        lengths = piece.unitcell_lengths
        handle.write(
            xyz=xyz,
            cell_lengths=None if lengths is None else in_units_of(lengths, "nanometers", handle.distance_unit),
            cell_angles=piece.unitcell_angles,
        )
    else:
        raise WestbenchError(f"a copied trajectory is written as .xtc or .dcd, not {type(handle).__name__}")
