"""Engine sanity of the chain itself: its length scale (``units``) and frames whose geometry is broken (``exploded``).

Part of :mod:`westbench.geometry.sanity` (which runs every check). The consecutive C-alpha pairs that are bonded
come from the native structure, else from the ground truth, so that a chain break is not taken for a stretched
bond; every per-frame array is made chunk by chunk (:data:`CHUNK_BYTES`).

Examples
--------
>>> import numpy as np
>>> ca = np.zeros((2, 4, 3), dtype=np.float32); ca[:, :, 0] = [0.0, 0.38, 0.76, 1.14]
>>> weights, bonded = np.full(2, 0.5), np.arange(3)
>>> straight = chain_geometry(ca, weights, bonded)
>>> units(straight, straight, bonded).passed, units(straight, chain_geometry(ca * 10, weights, bonded), bonded).passed
(True, False)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from westbench.geometry.features import frames_per_chunk

#: Bytes of per-chunk arrays (float64 bond lengths, dihedrals, pair distances) a check holds at once: the memory
#: of the checks is this, the C-alpha frames and a few per-frame vectors, whatever the protein's size.
CHUNK_BYTES = 64 * 2**20

#: A consecutive C-alpha pair is bonded when its distance in the native structure (or the ground truth's weighted
#: median) lies in this range (Angstrom): 3.8 for a trans peptide, 2.9 for a cis one; a pair across a chain break
#: or a missing residue lies outside it and is not a bond.
BONDED_A = (2.5, 4.5)
#: The weighted median bonded C-alpha distance (Angstrom) must lie in this range. It is 3.80-3.85 in any honest
#: sample (cis peptides are a few bonds of many; CG models hold 3.7-3.9 with their priors): Angstrom read as nm
#: (x10, 38), nm read as Angstrom (x0.1), Bohr read as Angstrom (x1.89, 7.2) and the inverse (x0.53, 2.0) are
#: caught; a chain uniformly stretched or shrunk by more than 13 % is no protein either.
UNITS_A = (3.3, 4.3)
#: A frame is exploded (or imploded) when a bonded C-alpha distance, at the model's own scale (divided by its
#: median bond, times 3.8), lies outside this range (Angstrom). The CG engine ends a walker at 2.5 and 6.0
#: (cg.engine bond_min_angstrom, bond_max_angstrom), so its kept frames pass; a covalent C-alpha pair is never
#: shorter than 2.8 nor longer than 4.0 in honest dynamics.
EXPLODED_BOND_A = (2.0, 6.5)
#: ... or when its radius of gyration, at the model's own scale, exceeds this factor times the larger of the
#: ground truth's largest and that of the fully extended chain (a rod of 3.8 Angstrom steps): no chain with
#: intact bonds gets there, and chains that drift apart at a chain break do.
EXPLODED_RG_FACTOR = 1.5
#: The model fails when more than this share of its weight is on exploded frames. An honest engine has none (the
#: CG engine ends such walkers, and their frames are left out before scoring); a walker that exploded and was
#: kept puts its bonds tens of Angstrom away, so even 0.1 % of the weight moves the bonds' and Rg's W1 by
#: several hundredths of an Angstrom.
EXPLODED_MAX_SHARE = 1e-3

#: The trans C-alpha step (Angstrom), the scale the exploded check measures against.
CA_STEP_A = 3.8

#: The ``threshold`` of each check here, in words.
THRESHOLDS = {
    "units": f"weighted median bonded C-alpha distance in {UNITS_A[0]:g}-{UNITS_A[1]:g} Å",
    "exploded": (
        f"at most {EXPLODED_MAX_SHARE:g} of the weight on frames with a bonded C-alpha distance outside "
        f"{EXPLODED_BOND_A[0]:g}-{EXPLODED_BOND_A[1]:g} Å or a radius of gyration above {EXPLODED_RG_FACTOR:g} x the "
        "ground truth's largest (or the extended chain's), at the model's own scale"
    ),
}


@dataclass(frozen=True)
class Check:
    """One check's outcome: ``passed`` (None: not decidable, the message says why), the number it decided on,
    the threshold in words and a message that names the numbers."""

    passed: bool | None
    value: float | None
    threshold: str
    message: str

    def to_dict(self) -> dict:
        value = None if self.value is None or not np.isfinite(self.value) else float(self.value)
        return {"passed": self.passed, "value": value, "threshold": self.threshold, "message": self.message}


def chunks(n_frames: int, values_per_frame: int):
    """Slices of frames whose per-chunk float64 arrays of ``values_per_frame`` values fit :data:`CHUNK_BYTES`."""
    step = frames_per_chunk(values_per_frame, budget_bytes=CHUNK_BYTES)
    return (slice(start, min(start + step, n_frames)) for start in range(0, n_frames, step))


def weighted_median(values: np.ndarray, weights: np.ndarray) -> float:
    """The weighted median (the smallest value with at least half the weight at or below it).

    >>> weighted_median(np.array([3.0, 1.0, 2.0]), np.array([0.2, 0.3, 0.5]))
    2.0
    """
    order = np.argsort(values, kind="stable")
    cumulative = np.cumsum(weights[order])
    # Within 1e-9 of half is half: weights times a constant (float rounding) never move the median across a tie.
    return float(values[order][np.searchsorted(cumulative, 0.5 * cumulative[-1] * (1 - 1e-9))])


def bonded_pairs(gt_ca: np.ndarray, gt_w: np.ndarray, native: np.ndarray | None) -> np.ndarray:
    """Indices i of the consecutive pairs (i, i + 1) that are bonded (:data:`BONDED_A`) in the native structure,
    else in the ground truth's weighted median."""
    if gt_ca.shape[1] < 2:
        return np.zeros(0, dtype=int)
    if native is not None:
        lengths = 10.0 * np.linalg.norm(np.diff(native, axis=0), axis=1)
    else:
        support = np.flatnonzero(gt_w > 0)
        steps = 10.0 * np.linalg.norm(np.diff(np.asarray(gt_ca[support], dtype=np.float64), axis=1), axis=2)
        lengths = np.array([weighted_median(steps[:, i], gt_w[support]) for i in range(steps.shape[1])])
    return np.flatnonzero((lengths >= BONDED_A[0]) & (lengths <= BONDED_A[1]))


@dataclass
class ChainGeometry:
    """Per frame: the median, smallest and largest bonded C-alpha distance and the radius of gyration (Angstrom);
    and the frames' weights."""

    median_bond: np.ndarray
    shortest: np.ndarray
    longest: np.ndarray
    rg: np.ndarray
    weights: np.ndarray


def chain_geometry(ca: np.ndarray, weights: np.ndarray, bonded: np.ndarray) -> ChainGeometry:
    """:class:`ChainGeometry` of frames ``ca`` (nm), chunk by chunk (frames of zero weight are skipped)."""
    support = np.flatnonzero(weights > 0)
    n = len(support)
    median, shortest, longest, rg = (np.full(n, np.nan) for _ in range(4))
    for part in chunks(n, 3 * ca.shape[1] + len(bonded)):
        xyz = np.asarray(ca[support[part]], dtype=np.float64) * 10.0
        centred = xyz - xyz.mean(axis=1, keepdims=True)
        rg[part] = np.sqrt((centred**2).sum(axis=2).mean(axis=1))
        if len(bonded):
            steps = np.linalg.norm(xyz[:, bonded + 1] - xyz[:, bonded], axis=2)
            median[part], shortest[part], longest[part] = (
                np.median(steps, axis=1),
                steps.min(axis=1),
                steps.max(axis=1),
            )
    return ChainGeometry(median, shortest, longest, rg, weights[support])


def units(groundtruth: ChainGeometry, model: ChainGeometry, bonded: np.ndarray) -> Check:
    """The ``units`` check: the weighted median bonded C-alpha distance within :data:`UNITS_A` (judged only where
    the ground truth's own is: against a ground truth that is no protein chain at this scale, nothing is)."""
    threshold = THRESHOLDS["units"]
    if not len(bonded):
        return Check(
            None,
            None,
            threshold,
            "no consecutive C-alpha pair of the native structure (or the ground truth) is bonded "
            f"({BONDED_A[0]:g}-{BONDED_A[1]:g} Å): the scale cannot be judged",
        )
    value = weighted_median(model.median_bond, model.weights)
    own = weighted_median(groundtruth.median_bond, groundtruth.weights)
    if not UNITS_A[0] <= own <= UNITS_A[1]:
        return Check(
            None,
            value,
            threshold,
            f"median bonded C-alpha distance {value:.3g} Å; the ground truth's own is {own:.3g} Å, outside a "
            "protein's: the model's scale cannot be judged against it (check the ground truth's units)",
        )
    if UNITS_A[0] <= value <= UNITS_A[1]:
        return Check(True, value, threshold, f"median bonded C-alpha distance {value:.3g} Å")
    factor = value / CA_STEP_A
    hint = (
        "Angstrom read as nm? (x10)"
        if 7.0 <= factor <= 14.0
        else "nm read as Angstrom? (x0.1)"
        if 0.07 <= factor <= 0.14
        else "Bohr read as Angstrom? (x1.89)"
        if 1.7 <= factor <= 2.1
        else "a length unit or scale mistake"
    )
    return Check(
        False,
        value,
        threshold,
        f"median bonded C-alpha distance {value:.3g} Å, {factor:.3g} times the 3.8 Å of a protein: {hint}; "
        "write the model's frames in nm (the frames contract)",
    )


def exploded(groundtruth: ChainGeometry, model: ChainGeometry, n_residues: int, bonded: np.ndarray) -> Check:
    """The ``exploded`` check: the weight on frames broken at the model's own scale (:data:`EXPLODED_BOND_A`,
    :data:`EXPLODED_RG_FACTOR`)."""
    threshold = THRESHOLDS["exploded"]
    # At each sample's own scale: a unit mistake is the units check's, and every frame of it would be "exploded" here.
    model_scale, gt_scale = scale_of(model, bonded), scale_of(groundtruth, bonded)
    rod = CA_STEP_A * np.sqrt(max(n_residues**2 - 1, 0) / 12.0)
    rg_limit = EXPLODED_RG_FACTOR * max(float(np.max(groundtruth.rg)) * gt_scale, rod)
    broken = model.rg * model_scale > rg_limit
    if len(bonded):
        # A ground truth that is no protein chain (a test's random walk) widens the range to its own.
        low = min(EXPLODED_BOND_A[0], float(np.min(groundtruth.shortest)) * gt_scale)
        high = max(EXPLODED_BOND_A[1], float(np.max(groundtruth.longest)) * gt_scale)
        broken |= (model.shortest * model_scale < low) | (model.longest * model_scale > high)
    share = float(model.weights[broken].sum())
    frames = int(broken.sum())
    if share <= EXPLODED_MAX_SHARE:
        return Check(True, share, threshold, f"{frames} frames ({share:.3g} of the weight) broken")
    worst = float(np.nanmax(model.longest * model_scale)) if len(bonded) else float("nan")
    largest = float(np.max(model.rg * model_scale))
    return Check(
        False,
        share,
        threshold,
        f"{frames} frames carrying {100 * share:.3g} % of the weight are exploded or imploded (longest bonded C-alpha "
        f"distance {worst:.3g} Å at the model's scale; radius of gyration up to {largest:.3g} "
        f"Å, limit {rg_limit:.3g}): end such walkers in the engine, or leave their frames out",
    )


def scale_of(geometry: ChainGeometry, bonded: np.ndarray) -> float:
    """The factor that brings a sample's weighted median bonded C-alpha distance to 3.8 Angstrom (1 without bonds)."""
    if not len(bonded):
        return 1.0
    median = weighted_median(geometry.median_bond, geometry.weights)
    return CA_STEP_A / median if median > 0 else 1.0
