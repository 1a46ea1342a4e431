"""C-alpha geometry every stage shares: radius of gyration, bonds, angles, dihedrals, in float64.

Sampling (the CG prior) and analysis (the metric suite) both read it; it imports neither.

Every quantity is internal (unchanged by rotating or translating a frame), and computed in float64 from the
coordinates as given: mdtraj's float32 kernels round each frame's geometry to about 1e-7 of its size, so a rigid
motion of the frames moved scores by up to 3e-3 (a dihedral or bond crossing a histogram edge); here it moves
them by float64 rounding (about 1e-15). Frames are taken in chunks (:data:`CHUNK_VALUES` coordinates at a time),
so memory beyond the result stays bounded whatever the protein's size. The conventions are mdtraj's (IUPAC
dihedral sign: a right-handed helix has positive C-alpha dihedrals; the tests check them against mdtraj).

Examples
--------
>>> import numpy as np
>>> ca = np.zeros((1, 4, 3), dtype=np.float32); ca[0, :, 0] = [0.0, 0.38, 0.76, 1.14]
>>> [round(float(b), 3) for b in bond_lengths(ca)[0]]
[0.38, 0.38, 0.38]
>>> corner = np.array([[[0.0, 0, 0], [0.38, 0, 0], [0.38, 0.38, 0], [0.38, 0.38, 0.38]]])  # right angles
>>> [round(float(np.degrees(a)), 1) for a in bond_angles(corner)[0]], round(float(np.degrees(dihedrals(corner)[0, 0])))
([90.0, 90.0], 90)
"""

from __future__ import annotations

from typing import Callable

import numpy as np

#: Coordinates (frames x beads x 3) taken at a time: the temporaries of one chunk stay near 100 MB.
CHUNK_VALUES = 1_500_000
#: The resolution of the values the metric suite scores (:func:`quantized`, in their units: Angstrom, degrees).
QUANTUM = 2.0**-30


def quantized(values, quantum: float = QUANTUM) -> np.ndarray:
    """``values`` rounded to the nearest multiple of ``quantum`` (a power of two: the rounding is exact).

    Histogram edges sit on ties: a dihedral of exactly 180 or 90 degrees (a planar or right-angled chain) is a
    cell edge, and values that tie (coordinates on a grid) decide where a quantile edge falls. Rounding moves
    each of them by float64 rounding (1e-14 degrees) to either side, and a rigid motion then moved a floor by 0.06 %
    (a dihedral from 180 across the circle's seam to -180 + 1e-14). Rounded to 2^-30 (1e-9 Angstrom or degree,
    far below anything physical, far above float64 rounding), equal values stay equal and edge values stay on
    their edge; the chance that float64 rounding moves a value across half a quantum is about 1e-6 per value,
    and then by 1e-9, which no score sees.

    >>> quantized(np.array([180.0 - 1e-13, -180.0 + 1e-13])).tolist()  # the seam's two sides: one point of the circle
    [180.0, -180.0]
    >>> bool(abs(quantized(np.array([0.1]))[0] - 0.1) <= 2.0**-31)
    True
    """
    out = np.asarray(values, dtype=np.float64) / quantum
    np.rint(out, out=out)
    out *= quantum
    return out


def _chunked(ca: np.ndarray, width: int, compute: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """``compute`` (float64 (frames, beads, 3) -> (frames, width)) over chunks of frames."""
    ca = np.asarray(ca)
    n = len(ca)
    out = np.empty((n, width))
    step = max(1, CHUNK_VALUES // max(1, ca.shape[1] * 3))
    for start in range(0, n, step):
        out[start : start + step] = compute(np.asarray(ca[start : start + step], dtype=np.float64))
    return out


def radius_of_gyration(ca: np.ndarray) -> np.ndarray:
    """Rg of every frame (nm), beads weighted equally: the root mean square distance from their centre."""

    def rg(x):
        centred = x - x.mean(axis=1, keepdims=True)
        return np.sqrt((centred**2).sum(axis=-1).mean(axis=1))[:, None]

    return _chunked(ca, 1, rg)[:, 0]


def bond_lengths(ca: np.ndarray) -> np.ndarray:
    """Consecutive C-alpha distances (n_frames, n - 1), nm."""
    n = np.shape(ca)[1]
    return _chunked(ca, max(n - 1, 0), lambda x: np.sqrt((np.diff(x, axis=1) ** 2).sum(axis=-1)))


def bond_angles(ca: np.ndarray) -> np.ndarray:
    """C-alpha triplet angles (n_frames, n - 2), radians in [0, pi]: the angle at bead i + 1 between the bonds to
    beads i and i + 2 (atan2 of the cross and dot products: exact near 0 and pi, where arccos is not)."""
    n = np.shape(ca)[1]

    def angles(x):
        u, v = x[:, :-2] - x[:, 1:-1], x[:, 2:] - x[:, 1:-1]
        return np.arctan2(np.linalg.norm(np.cross(u, v), axis=-1), (u * v).sum(axis=-1))

    return _chunked(ca, max(n - 2, 0), angles)


#: A dihedral whose first or last three beads are collinear to this (the sine of their angle: 1e-6, an angle within
#: 0.00006 degrees of 180, which no chain comes near) has no plane: 0. Closer to collinear, float64 rounding
#: alone moves the dihedral by 1e-16 / sine: by 1e-7 at a sine of 1e-9.
COLLINEAR = 1e-6


def dihedrals(ca: np.ndarray) -> np.ndarray:
    """C-alpha quadruplet dihedrals (n_frames, n - 3), radians in (-pi, pi], IUPAC sign (mdtraj's formula).

    Where three consecutive beads are collinear (to :data:`COLLINEAR`) the dihedral is undefined: 0, as mdtraj gives
    for exactly collinear beads, so a rotation, which leaves them collinear to float64 rounding only, cannot turn
    it into an arbitrary angle.
    """
    n = np.shape(ca)[1]

    def torsions(x):
        b1, b2, b3 = x[:, 1:-2] - x[:, :-3], x[:, 2:-1] - x[:, 1:-2], x[:, 3:] - x[:, 2:-1]
        c1, c2 = np.cross(b2, b3), np.cross(b1, b2)
        l1, l2, l3 = (np.linalg.norm(b, axis=-1) for b in (b1, b2, b3))
        value = np.arctan2((b1 * c1).sum(axis=-1) * l2, (c1 * c2).sum(axis=-1))
        planeless = (np.linalg.norm(c2, axis=-1) <= COLLINEAR * l1 * l2) | (
            np.linalg.norm(c1, axis=-1) <= COLLINEAR * l2 * l3
        )
        return np.where(planeless, 0.0, value)

    return _chunked(ca, max(n - 3, 0), torsions)
