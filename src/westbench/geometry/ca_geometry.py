"""C-alpha geometry every stage shares: radius of gyration, bonds, angles, dihedrals (mdtraj).

Sampling (the CG prior) and analysis (the metric suite) both read it; it imports neither.

Examples
--------
>>> import numpy as np
>>> ca = np.zeros((1, 4, 3), dtype=np.float32); ca[0, :, 0] = [0.0, 0.38, 0.76, 1.14]
>>> [round(float(b), 3) for b in bond_lengths(ca)[0]]
[0.38, 0.38, 0.38]
"""

from __future__ import annotations

import mdtraj
import numpy as np

from westbench.geometry.features import ca_trajectory


def radius_of_gyration(ca: np.ndarray) -> np.ndarray:
    """Rg of every frame (nm), beads weighted equally (mdtraj.compute_rg)."""
    return mdtraj.compute_rg(ca_trajectory(ca))


def bond_lengths(ca: np.ndarray) -> np.ndarray:
    """Consecutive C-alpha distances (n_frames, n - 1), nm."""
    n = ca.shape[1]
    return mdtraj.compute_distances(ca_trajectory(ca), np.column_stack([np.arange(n - 1), np.arange(1, n)]))


def bond_angles(ca: np.ndarray) -> np.ndarray:
    """C-alpha triplet angles (n_frames, n - 2), radians."""
    n = ca.shape[1]
    return mdtraj.compute_angles(
        ca_trajectory(ca), np.column_stack([np.arange(n - 2), np.arange(1, n - 1), np.arange(2, n)])
    )


def dihedrals(ca: np.ndarray) -> np.ndarray:
    """C-alpha quadruplet dihedrals (n_frames, n - 3), radians."""
    n = ca.shape[1]
    quads = np.column_stack([np.arange(n - 3), np.arange(1, n - 2), np.arange(2, n - 1), np.arange(3, n)])
    return mdtraj.compute_dihedrals(ca_trajectory(ca), quads)
