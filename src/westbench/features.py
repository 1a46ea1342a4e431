"""C-alpha features: atom selection and all pairwise distances.

Examples
--------
>>> import numpy as np
>>> ca = np.array([[[0, 0, 0], [0.38, 0, 0], [0.38, 0.38, 0]]], dtype=np.float32)
>>> [round(float(d), 3) for d in pairwise_distances(ca)[0]]
[0.38, 0.537, 0.38]
>>> pair_indices(3).tolist()
[[0, 1], [0, 2], [1, 2]]
"""

from __future__ import annotations

import functools

import mdtraj
import numpy as np


def ca_atom_indices(topology) -> list[int]:
    """Indices of the C-alpha atoms of protein residues, in residue order (OpenMM or mdtraj topology)."""
    atoms = topology.atoms() if callable(getattr(topology, "atoms", None)) else topology.atoms
    return [
        atom.index for atom in atoms if atom.name == "CA" and atom.element is not None and atom.element.symbol == "C"
    ]


def residue_atom_groups(topology, residues: int) -> list[list[int]]:
    """Atom indices of each of the first ``residues`` residues (the protein comes first in a solvated topology)."""
    return [[atom.index for atom in residue.atoms()] for residue in list(topology.residues())[:residues]]


def pair_indices(n_residues: int) -> np.ndarray:
    """The (i, j), i < j, residue pairs of the distance features, row-major."""
    i, j = np.triu_indices(n_residues, k=1)
    return np.column_stack([i, j])


def pairwise_distances(ca: np.ndarray) -> np.ndarray:
    """All pairwise C-alpha distances per frame.

    Parameters
    ----------
    ca : ndarray (n_frames, n_residues, 3)
        Positions in nm.

    Returns
    -------
    ndarray (n_frames, n_residues * (n_residues - 1) / 2), float32, nm, pairs in :func:`pair_indices` order.
    """
    ca = np.asarray(ca, dtype=np.float32)
    return mdtraj.compute_distances(ca_trajectory(ca), pair_indices(ca.shape[1]), periodic=False)


def ca_trajectory(ca: np.ndarray) -> mdtraj.Trajectory:
    """An mdtraj trajectory of C-alpha beads (one chain, one bead per residue), for mdtraj's geometry functions.

    Trajectories of the same bead count share one topology (read it, do not edit it): a WE run computes its
    progress coordinate segment by segment, and building the topology cost more than the distances.
    """
    ca = np.asarray(ca, dtype=np.float32)
    return mdtraj.Trajectory(ca, _ca_topology(ca.shape[1]))


@functools.lru_cache(maxsize=8)
def _ca_topology(n_beads: int) -> mdtraj.Topology:
    topology = mdtraj.Topology()
    chain = topology.add_chain()
    previous = None
    for index in range(n_beads):
        residue = topology.add_residue("ALA", chain, resSeq=index + 1)
        atom = topology.add_atom("CA", mdtraj.element.carbon, residue)
        if previous is not None:
            topology.add_bond(previous, atom)
        previous = atom
    return topology
