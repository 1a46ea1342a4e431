"""Force-matching data: C-alpha positions and forces of the ground truth, subsets and splits.

Examples
--------
>>> import numpy as np
>>> data = ProteinData("p", "GYD", np.zeros((40, 3, 3), np.float32), np.ones((40, 3, 3), np.float32))
>>> train, validation = split(subsample(data, 0.5, seed=1), 0.1, seed=1)
>>> len(train), len(validation)
(18, 2)
>>> data_hash([data]) == data_hash([data])
True
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from westbench.errors import WestbenchError
from westbench.geometry.features import ca_atom_indices
from westbench.io.frames import read_frames


@dataclass
class ProteinData:
    """Frames of one protein: positions and forces (n_frames, n_beads, 3), nm and kJ/mol/nm."""

    protein: str
    sequence: str | list
    positions: np.ndarray
    forces: np.ndarray

    def __len__(self) -> int:
        return len(self.positions)

    def take(self, index) -> "ProteinData":
        return ProteinData(self.protein, self.sequence, self.positions[index], self.forces[index])


def bead_residues(pdb_path: str | Path) -> list[str]:
    """Residue names of the C-alpha beads of a structure, in bead order (the ground truth's order)."""
    from openmm import app

    topology = app.PDBFile(str(pdb_path)).topology
    atoms = list(topology.atoms())
    return [atoms[i].residue.name for i in ca_atom_indices(topology)]


def load_protein_data(protein: str, frames_files: Sequence[str | Path], topology_pdb: str | Path) -> ProteinData:
    """Every ground-truth frame of a protein (the runs in the given order) with its forces."""
    positions, forces = [], []
    for path in frames_files:
        frames = read_frames(path)
        if "forces" not in frames:
            raise WestbenchError(f"{path} has no forces: CG training needs ground truth saved with forces")
        positions.append(frames["ca"])
        forces.append(frames["forces"])
    residues = bead_residues(topology_pdb)
    data = ProteinData(
        protein, residues, np.concatenate(positions).astype(np.float32), np.concatenate(forces).astype(np.float32)
    )
    if data.positions.shape[1] != len(residues):
        raise WestbenchError(
            f"protein {protein}: frames have {data.positions.shape[1]} beads, "
            f"{topology_pdb} has {len(residues)} C-alpha atoms"
        )
    if not (np.isfinite(data.positions).all() and np.isfinite(data.forces).all()):
        raise WestbenchError(f"protein {protein}: non-finite positions or forces in the ground truth")
    return data


def data_hash(datasets: Sequence[ProteinData]) -> str:
    """SHA-256 of the proteins, sequences, positions and forces a model is trained on."""
    digest = hashlib.sha256()
    for data in datasets:
        digest.update(f"{data.protein}:{''.join(map(str, data.sequence))}:{data.positions.shape}".encode())
        digest.update(np.ascontiguousarray(data.positions, dtype=np.float32).tobytes())
        digest.update(np.ascontiguousarray(data.forces, dtype=np.float32).tobytes())
    return digest.hexdigest()


def subsample(data: ProteinData, fraction: float, seed: int) -> ProteinData:
    """A seeded random ``fraction`` of the frames (at least 2), in their original order."""
    n = len(data)
    keep = min(n, max(2, int(round(fraction * n))))
    index = np.sort(np.random.default_rng(seed).choice(n, size=keep, replace=False))
    return data.take(index)


def split(data: ProteinData, validation_fraction: float, seed: int) -> tuple[ProteinData, ProteinData]:
    """Seeded random train / validation split (at least one frame on each side)."""
    n = len(data)
    if n < 2:
        raise WestbenchError(f"protein {data.protein}: {n} frame(s), too few to split for training")
    n_validation = min(n - 1, max(1, int(round(validation_fraction * n))))
    order = np.random.default_rng(seed).permutation(n)
    return data.take(np.sort(order[n_validation:])), data.take(np.sort(order[:n_validation]))
