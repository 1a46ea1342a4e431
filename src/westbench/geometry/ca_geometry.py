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


#: A dihedral whose first or last three beads are collinear to this (the sine of their angle: 1e-6, an angle within
#: 0.00006 degrees of 180, which no chain comes near) has no plane: 0. Closer to collinear, float64 rounding
#: alone moves the dihedral by 1e-16 / sine: by 1e-7 at a sine of 1e-9.
COLLINEAR = 1e-6
#: What :func:`chain_geometry` gives, per frame: (name, columns for n beads).
QUANTITIES = {"rg": lambda n: 1, "bonds": lambda n: n - 1, "angles": lambda n: n - 2, "dihedrals": lambda n: n - 3}


def _cross(a: tuple, b: tuple) -> tuple:
    """The cross product of two vectors given by components (a 3-tuple of arrays each)."""
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _dot(a: tuple, b: tuple) -> np.ndarray:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _chunk_geometry(axes: tuple, wanted: tuple) -> dict:
    """The ``wanted`` quantities of a chunk of frames given as float64 (frames, beads) coordinates per axis."""
    out = {}
    if "rg" in wanted:
        out["rg"] = np.sqrt(sum(((c - c.mean(axis=1, keepdims=True)) ** 2).mean(axis=1) for c in axes))[:, None]
    bond = tuple(np.diff(c, axis=1) for c in axes)  # bond i: bead i to bead i + 1
    length = np.sqrt(_dot(bond, bond))
    out["bonds"] = length
    if "angles" in wanted or "dihedrals" in wanted:
        first, second = tuple(b[:, :-1] for b in bond), tuple(b[:, 1:] for b in bond)
        normal = _cross(first, second)  # of the plane of beads i, i + 1, i + 2
        sine = np.sqrt(_dot(normal, normal))  # |b_i x b_i+1|
        # The angle at bead i + 1 between -b_i and b_i+1: atan2 of |cross| and dot (exact near 0 and pi); + 0.0 makes
        # the dot of a bond of length 0 (two beads at one point) +0.0, whose angle is 0 whatever the signs around it.
        out["angles"] = np.arctan2(sine, -_dot(first, second) + 0.0)
        if "dihedrals" in wanted:
            b1 = tuple(b[:, :-2] for b in bond)
            c1, c2 = tuple(m[:, 1:] for m in normal), tuple(m[:, :-1] for m in normal)
            value = np.arctan2(_dot(b1, c1) * length[:, 1:-1], _dot(c1, c2))
            planeless = (sine[:, :-1] <= COLLINEAR * length[:, :-2] * length[:, 1:-1]) | (
                sine[:, 1:] <= COLLINEAR * length[:, 1:-1] * length[:, 2:]
            )
            out["dihedrals"] = np.where(planeless, 0.0, value)
    return {name: out[name] for name in wanted}


def chain_geometry(ca: np.ndarray, wanted: tuple = tuple(QUANTITIES)) -> dict[str, np.ndarray]:
    """Rg (n_frames,), bonds, angles and dihedrals (n_frames, n - 1, n - 2, n - 3) of every frame in one pass over
    chunks of frames (the bond vectors and plane normals shared), float64, nm and radians. ``wanted``: which.

    >>> ca = np.array([[[0.0, 0, 0], [0.38, 0, 0], [0.38, 0.38, 0], [0.38, 0.38, 0.38]]])
    >>> {name: np.round(values, 3).tolist() for name, values in chain_geometry(ca).items()}["dihedrals"]
    [[1.571]]
    """
    ca = np.asarray(ca)
    n, beads = len(ca), ca.shape[1]
    out = {name: np.empty((n, max(QUANTITIES[name](beads), 0))) for name in wanted}
    step = max(1, CHUNK_VALUES // max(1, beads * 3))
    for start in range(0, n, step):
        chunk = ca[start : start + step]
        axes = tuple(np.ascontiguousarray(chunk[..., k], dtype=np.float64) for k in range(3))
        for name, values in _chunk_geometry(axes, tuple(wanted)).items():
            out[name][start : start + step] = values
    if "rg" in out:
        out["rg"] = out["rg"][:, 0]
    return out


def radius_of_gyration(ca: np.ndarray) -> np.ndarray:
    """Rg of every frame (nm), beads weighted equally: the root mean square distance from their centre."""
    return chain_geometry(ca, ("rg",))["rg"]


def bond_lengths(ca: np.ndarray) -> np.ndarray:
    """Consecutive C-alpha distances (n_frames, n - 1), nm."""
    return chain_geometry(ca, ("bonds",))["bonds"]


def bond_angles(ca: np.ndarray) -> np.ndarray:
    """C-alpha triplet angles (n_frames, n - 2), radians in [0, pi]: the angle at bead i + 1 between the bonds to
    beads i and i + 2 (atan2 of the cross and dot products: exact near 0 and pi, where arccos is not)."""
    return chain_geometry(ca, ("angles",))["angles"]


def dihedrals(ca: np.ndarray) -> np.ndarray:
    """C-alpha quadruplet dihedrals (n_frames, n - 3), radians in (-pi, pi], IUPAC sign (mdtraj's formula).

    Where three consecutive beads are collinear (to :data:`COLLINEAR`) the dihedral is undefined: 0, as mdtraj gives
    for exactly collinear beads, so a rotation, which leaves them collinear to float64 rounding only, cannot turn
    it into an arbitrary angle.
    """
    return chain_geometry(ca, ("dihedrals",))["dihedrals"]
