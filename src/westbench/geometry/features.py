"""C-alpha features: atom selection, positions of a structure, and all pairwise distances.

TICA's features are the distances of the pairs its model stores (:mod:`westbench.tica.pair_selection`): project
with the model (:meth:`westbench.tica.TicaModel.project`), not with :func:`pairwise_distances`, which serves
the structural observables (distance maps) and small proteins.

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


def ca_positions(structure) -> np.ndarray:
    """C-alpha positions (n_residues, 3), nm, of the first model of a structure file (PDB, GRO, ...)."""
    traj = mdtraj.load_frame(str(structure), 0)
    return traj.xyz[0, ca_atom_indices(traj.topology)]


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


#: Bytes of per-chunk arrays (distances of every pair, per-frame geometry) that the chunked C-alpha functions hold
#: at once, whatever the protein's size: frames are taken in chunks of this many bytes, not of a fixed frame count
#: (5,000 frames of all 179,700 pairs of a 600-residue protein are 3.6 GB of float32; 64 MB hold 93 frames of them,
#: 28,000 of a 35-residue protein's 595 pairs, and numpy's throughput is flat above a few MB).
CHUNK_BYTES = 64 * 2**20


def frames_per_chunk(values_per_frame: int, bytes_per_value: int = 8, budget_bytes: int = CHUNK_BYTES) -> int:
    """How many frames of ``values_per_frame`` values (``bytes_per_value`` each) fit ``budget_bytes``: at least one.

    >>> frames_per_chunk(179_700, 4), frames_per_chunk(595, 4), frames_per_chunk(0)
    (93, 28197, 8388608)
    """
    return max(1, int(budget_bytes) // (max(1, int(values_per_frame)) * max(1, int(bytes_per_value))))


#: Positions (consecutive pairs, triplets, quadruplets) of a per-residue distribution that the metric suite scores:
#: above this count, evenly spaced positions along the chain stand for all (the same for every engine of a protein),
#: as a sample of pairs does for the contact map. The suite's exact W1, histograms and nearest-neighbour KL hold about
#: 130 bytes per value scored, so memory grows with frames x this, not frames x residues: a 600-residue protein of
#: 30,000 frames held 7.4 GB scoring all 600 positions (benchmarks/foreign_large.json). Every protein of
#: config/paper.yaml (at most 80 residues) keeps all its positions.
MAX_SCORED_POSITIONS = 100


def scored_positions(count: int, limit: int = MAX_SCORED_POSITIONS) -> np.ndarray:
    """The positions of a per-residue distribution with ``count`` of them that are scored: all up to ``limit``,
    else ``limit`` (at least 2) evenly spaced ones, the first and last included.

    >>> scored_positions(7).tolist(), scored_positions(10, limit=4).tolist()
    ([0, 1, 2, 3, 4, 5, 6], [0, 3, 6, 9])
    """
    if count <= limit:
        return np.arange(count)
    return np.unique(np.round(np.linspace(0, count - 1, limit)).astype(np.int64))


def scored_columns(values: np.ndarray, limit: int = MAX_SCORED_POSITIONS) -> np.ndarray:
    """(n_frames, positions) values of a per-residue distribution, their :func:`scored_positions` columns only (the
    array itself when all are scored)."""
    values = np.asarray(values)
    return values if values.shape[1] <= limit else values[:, scored_positions(values.shape[1], limit)]


def mean_pairwise_distances(ca: np.ndarray, weights=None, chunk_frames: int | None = None) -> np.ndarray:
    """Weighted mean of every pairwise C-alpha distance (nm), in :func:`pair_indices` order, chunk by chunk.

    Memory is O(:data:`CHUNK_BYTES`), not O(frames x pairs) (100,000 frames of a 250-residue protein would hold
    12 GB of distances at once): ``chunk_frames`` (default: as many frames as :data:`CHUNK_BYTES` of distances
    and their float64 product hold) bounds the frames per chunk.

    Parameters
    ----------
    ca : ndarray (n_frames, n_residues, 3)
    weights : None, ndarray (n_frames,) or (k, n_frames)
        None weighs every frame the same; k rows give k means (each row normalized).

    Returns
    -------
    ndarray (n_pairs,) or (k, n_pairs)

    >>> ca = np.array([[[0, 0, 0], [0.3, 0, 0]], [[0, 0, 0], [0.5, 0, 0]]], dtype=np.float32)
    >>> mean_pairwise_distances(ca).round(3).tolist()
    [0.4]
    >>> mean_pairwise_distances(ca, [[1, 0], [1, 3]], chunk_frames=1).round(3).tolist()
    [[0.3], [0.45]]
    """
    ca = np.asarray(ca)
    rows = np.ones((1, len(ca))) if weights is None else np.atleast_2d(np.asarray(weights, dtype=np.float64))
    rows = rows / rows.sum(axis=1, keepdims=True)
    n_pairs = ca.shape[1] * (ca.shape[1] - 1) // 2
    total = np.zeros((len(rows), n_pairs))
    if chunk_frames is None:  # float32 distances, and their float64 copy in the product
        chunk_frames = frames_per_chunk(n_pairs, bytes_per_value=4 + 8)
    for start in range(0, len(ca), chunk_frames):
        total += rows[:, start : start + chunk_frames] @ pairwise_distances(ca[start : start + chunk_frames])
    return total[0] if weights is None or np.ndim(weights) == 1 else total


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
