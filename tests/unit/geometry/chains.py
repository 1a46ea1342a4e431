"""C-alpha chains built from internal coordinates (NeRF): honest protein-like ensembles for the sanity tests.

Bonds of 3.8 Angstrom, C-alpha angles near 95 (helix) or 120 (strand) degrees and dihedrals near +50 (right-handed
helix) or -170 (strand): the handedness of an L-protein's C-alpha trace, with thermal noise.
"""

import numpy as np

#: Trans C-alpha step (nm).
STEP_NM = 0.38
#: (angle, dihedral) in degrees of the two states a residue visits: helix and strand.
HELIX, STRAND = (92.0, 50.0), (120.0, -170.0)


def chain_ensemble(
    n_residues: int,
    n_frames: int,
    seed: int,
    helix_share: float = 0.5,
    noise_deg: float = 12.0,
    step_nm: float = STEP_NM,
) -> np.ndarray:
    """(n_frames, n_residues, 3) float32 C-alpha positions (nm); each frame's residues helical with
    ``helix_share`` probability (in runs, as a protein's secondary structure), else strand."""
    rng = np.random.default_rng(seed)
    n_angles = max(n_residues - 2, 0)
    helical = rng.random((n_frames, 1)) < helix_share
    segments = rng.random((n_frames, n_angles)) < 0.8  # most residues follow the frame's state
    state = np.where(segments, helical, ~helical)
    angle = np.where(state, HELIX[0], STRAND[0]) + rng.normal(0, noise_deg / 2, (n_frames, n_angles))
    dihedral = np.where(state, HELIX[1], STRAND[1]) + rng.normal(0, noise_deg, (n_frames, n_angles))
    steps = np.full((n_frames, max(n_residues - 1, 0)), step_nm) + rng.normal(
        0, 0.002, (n_frames, max(n_residues - 1, 0))
    )
    return build(steps, np.radians(angle), np.radians(dihedral))


def build(steps: np.ndarray, angles: np.ndarray, dihedrals: np.ndarray) -> np.ndarray:
    """Positions from bond lengths (frames, n - 1), angles (frames, n - 2) and dihedrals (frames, n - 2; the first
    is unused) by the natural extension reference frame, so that mdtraj measures the dihedrals given."""
    n_frames, n = steps.shape[0], steps.shape[1] + 1
    xyz = np.zeros((n_frames, n, 3))
    if n > 1:
        xyz[:, 1, 0] = steps[:, 0]
    if n > 2:
        theta = np.pi - angles[:, 0]
        xyz[:, 2] = xyz[:, 1] + steps[:, 1:2] * np.stack([np.cos(theta), np.sin(theta), np.zeros(n_frames)], axis=1)
    for i in range(3, n):
        a, b, c = xyz[:, i - 3], xyz[:, i - 2], xyz[:, i - 1]
        bc = c - b
        bc /= np.linalg.norm(bc, axis=1, keepdims=True)
        normal = np.cross(b - a, bc)
        normal /= np.linalg.norm(normal, axis=1, keepdims=True)
        across = np.cross(normal, bc)
        theta, phi, r = angles[:, i - 2], dihedrals[:, i - 2], steps[:, i - 1]
        local = np.stack([-r * np.cos(theta), r * np.sin(theta) * np.cos(phi), r * np.sin(theta) * np.sin(phi)], 1)
        xyz[:, i] = c + local[:, :1] * bc + local[:, 1:2] * across + local[:, 2:3] * normal
    return xyz.astype(np.float32)
