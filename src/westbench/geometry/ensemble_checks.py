"""Engine sanity of the ensemble: too few distinct conformations (``collapse``) and the wrong hand (``chirality``).

Part of :mod:`westbench.geometry.sanity` (which runs every check). Both are judged under the model's weights, so a
WE run whose weight rests on a few frames is judged on its weights, and both are independent of the row order, of
a frame written twice and of zero-weight frames.

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> ca = np.cumsum(rng.normal(0, 0.2, (200, 8, 3)), axis=1).astype(np.float32)
>>> weights = np.full(200, 1 / 200)
>>> collapse(ca, weights, ca, weights).passed, collapse(ca, weights, ca[[0] * 200], weights).passed
(True, False)
"""

from __future__ import annotations

import numpy as np

from westbench.geometry.ca_geometry import dihedrals
from westbench.geometry.chain_checks import Check, chunks
from westbench.geometry.handedness import (
    ACHIRAL_HANDEDNESS,
    MAX_MIRROR_HANDEDNESS,
    hand_verdict,
    handedness_profile,
)

#: Frames picked by weight for the collapse check. 1 / P(two picks coincide) can reach at most this count, so it
#: must be well above :data:`MIN_CONFORMATIONS` (and the pairs of picks, PICKS^2 / 2 = 80,000 distances, cost
#: milliseconds).
PICKS = 400
#: Residue pairs whose distances describe a conformation (all pairs up to this count, else a seeded choice): the
#: RMS difference of 256 distances has a relative error of about 1/sqrt(2 * 256) = 4 % against all pairs', enough
#: to tell copies (0) from conformations (Angstroms apart), at a cost independent of the protein's size.
CONFORMATION_PAIRS = 256
#: Two frames within this RMS pair-distance difference (Angstrom) are the same conformation: a copy (0), or a copy
#: with noise of 0.02 Angstrom per coordinate. Frames of an honest thermal ensemble are not: frames 0.4 ps apart of
#: the demo's explicit-solvent WE run (its shortest) give 78 distinct conformations of its 90 effective frames at
#: this distance (43 at 0.1 Angstrom, 8 at 0.2: C-alpha distances change less than positions).
SAME_CONFORMATION_A = 0.05
#: A model with fewer effective distinct conformations than this fails (never more than
#: :data:`MIN_CONFORMATIONS_GT_SHARE` of the ground truth's own count): "a few frames repeated" (1 to 5, or 9) is
#: caught; the demo's honest engines have 78 (explicit solvent, 120 frames) to 380 (CG) under their WE weights, and a
#: sample worth scoring has ``metrics.min_effective_frames`` (20) effective frames.
MIN_CONFORMATIONS = 10.0
#: ... but never more than this share of the ground truth's own distinct conformations (a ground truth of 8
#: frames does not make every engine collapsed).
MIN_CONFORMATIONS_GT_SHARE = 0.5
#: A model whose spread (mean distance between two weighted picks) is below this share of the ground truth's
#: fails: a few structures jittered by noise, or frames that barely move (minimized, dynamics near zero
#: temperature). The demo's short WE runs, which stay near their starts, spread 0.30 (explicit solvent) and 0.34
#: (implicit) of its ground truth, whose runs start far apart; its CG runs 0.8-0.9.
MIN_SPREAD_RATIO = 0.1

#: The ground truth is clearly chiral when the root mean square of its handedness profile (the weighted mean sine of
#: each C-alpha dihedral; a mirror image negates it) is at least this. An achiral distribution sampled with 60
#: frames has a profile of noise alone, about 0.1 (the sine's spread, 0.7, over sqrt(60)); L-proteins lie far above
#: it (the demo's chignolin, a beta hairpin: 0.51; helices more, their +50 degree dihedrals at a sine of 0.77).
MIN_GROUNDTRUTH_PROFILE = 0.2
#: ... and at least this many times the RMS of its own standard error (frames taken as independent): a small ground
#: truth of an achiral chain (a test's random walk, 20 frames) has a profile of 0.16 by noise alone; the demo's
#: chignolin lies 8 standard errors out.
MIN_GROUNDTRUTH_PROFILE_Z = 3.0
#: Seed of the choice of pairs and of the content order of picks (fixed: the checks are a property of the data).
SEED = 20_251_205

#: The ``threshold`` of each check here, in words.
THRESHOLDS = {
    "collapse": (
        f"at least {MIN_CONFORMATIONS:g} effective distinct conformations (at most {MIN_CONFORMATIONS_GT_SHARE:g} "
        f"of the ground truth's; same: within {SAME_CONFORMATION_A:g} Å RMS pair-distance difference) and a spread "
        f"of at least {MIN_SPREAD_RATIO:g} of the ground truth's"
    ),
    "chirality": (
        f"handedness above {MAX_MIRROR_HANDEDNESS:g} (+1: the ground truth's C-alpha dihedrals, -1: their mirror "
        f"image) frame by frame against the nearest ground-truth conformation where that reads at least "
        f"{ACHIRAL_HANDEDNESS:g} either way, else by the handedness profile (not judged below it), judged where the "
        f"ground truth's profile (RMS mean sine) reaches {MIN_GROUNDTRUTH_PROFILE:g} and "
        f"{MIN_GROUNDTRUTH_PROFILE_Z:g} standard errors"
    ),
}


def conformation_features(ca: np.ndarray, frames: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """(len(frames), len(pairs)) float64 C-alpha distances (Angstrom) of the given frames and residue pairs."""
    xyz = np.asarray(ca[frames], dtype=np.float64) * 10.0
    return np.linalg.norm(xyz[:, pairs[:, 0]] - xyz[:, pairs[:, 1]], axis=2)


def conformation_pairs(n_residues: int) -> np.ndarray:
    """The residue pairs that describe a conformation: every pair, or a seeded :data:`CONFORMATION_PAIRS` of them."""
    i, j = np.triu_indices(n_residues, k=1)
    pairs = np.column_stack([i, j])
    if len(pairs) > CONFORMATION_PAIRS:
        pairs = pairs[np.sort(np.random.default_rng(SEED).choice(len(pairs), CONFORMATION_PAIRS, replace=False))]
    return pairs


def weighted_picks(ca: np.ndarray, weights: np.ndarray, pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:data:`PICKS` frames by systematic sampling over the weights in an order fixed by the frames' content (a
    seeded projection of their pair distances): the unique frames picked and how many times each.

    Systematic sampling gives each frame floor or ceil of PICKS x its weight; ordering by content (not by row)
    makes the picks independent of the row order, and keeps copies of a frame next to each other, so a frame
    written twice with half its weight is picked as often as the frame once.
    """
    support = np.flatnonzero(weights > 0)
    direction = np.random.default_rng(SEED).normal(size=len(pairs))
    key = np.empty(len(support))
    for part in chunks(len(support), 3 * ca.shape[1] + 2 * len(pairs)):
        key[part] = conformation_features(ca, support[part], pairs) @ direction
    order = support[np.argsort(key, kind="stable")]
    cumulative = np.cumsum(weights[order])
    positions = (np.arange(PICKS) + 0.5) / PICKS * cumulative[-1]
    # A frame whose cumulative weight ties a position (within 1e-9: float rounding, weights times a constant) is
    # passed, whatever the rounding.
    at = np.searchsorted(cumulative, positions + 1e-9 * cumulative[-1], side="right")
    picked = order[np.minimum(at, len(order) - 1)]
    frames, counts = np.unique(picked, return_counts=True)
    return frames, counts


def squared_distances(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(len(a), len(b)) squared Euclidean distances between the rows of two feature matrices (rounding can leave
    them slightly negative)."""
    return (a**2).sum(axis=1)[:, None] + (b**2).sum(axis=1)[None, :] - 2.0 * a @ b.T


def pick_statistics(ca: np.ndarray, weights: np.ndarray, pairs: np.ndarray, scale: float = 1.0) -> tuple[float, float]:
    """(effective distinct conformations, spread in Angstrom) of weighted picks of the frames, their distances
    times ``scale``."""
    frames, counts = weighted_picks(ca, weights, pairs)
    features = conformation_features(ca, frames, pairs) * scale
    distance = np.sqrt(np.maximum(squared_distances(features, features), 0.0) / max(len(pairs), 1))
    np.fill_diagonal(distance, 0.0)
    counts = counts.astype(np.int64)
    same = int(counts @ (distance <= SAME_CONFORMATION_A).astype(np.int64) @ counts)  # pairs of picks, exact
    share = counts / counts.sum()
    return float(counts.sum() ** 2 / same), float(share @ distance @ share)


def collapse(
    gt_ca: np.ndarray,
    gt_w: np.ndarray,
    model_ca: np.ndarray,
    model_w: np.ndarray,
    gt_scale: float = 1.0,
    model_scale: float = 1.0,
) -> Check:
    """The ``collapse`` check (module docstring): effective distinct conformations and spread against the ground
    truth's, each sample at its own scale (``*_scale``: the factor that brings its C-alpha step to 3.8 Angstrom,
    :func:`westbench.geometry.chain_checks.scale_of`), so that a unit mistake is the units check's alone."""
    threshold = THRESHOLDS["collapse"]
    if gt_ca.shape[1] < 2:
        return Check(None, None, threshold, "a single C-alpha has one conformation: collapse cannot be judged")
    pairs = conformation_pairs(gt_ca.shape[1])
    gt_distinct, gt_spread = pick_statistics(gt_ca, gt_w, pairs, gt_scale)
    distinct, spread = pick_statistics(model_ca, model_w, pairs, model_scale)
    needed = min(MIN_CONFORMATIONS, MIN_CONFORMATIONS_GT_SHARE * gt_distinct)
    ratio = spread / gt_spread if gt_spread > 0 else float("inf")
    numbers = (
        f"{distinct:.3g} effective distinct conformations (the ground truth: {gt_distinct:.3g}), spread "
        f"{spread:.3g} Å ({ratio:.3g} of the ground truth's {gt_spread:.3g} Å)"
    )
    if gt_spread <= 0:
        return Check(None, distinct, threshold, f"{numbers}: the ground truth has no spread to compare with")
    if distinct >= needed and ratio >= MIN_SPREAD_RATIO:
        return Check(True, distinct, threshold, numbers)
    why = []
    if distinct < needed:
        why.append(f"fewer than {needed:.3g} distinct conformations")
    if ratio < MIN_SPREAD_RATIO:
        why.append(f"a spread below {MIN_SPREAD_RATIO:g} of the ground truth's")
    return Check(
        False,
        distinct,
        threshold,
        f"{numbers}: {' and '.join(why)}; the weight rests on a few structures (a few frames repeated, or weights "
        "that leave all but a few frames out): sample longer or more evenly",
    )


def matched_handedness(
    gt_ca: np.ndarray,
    gt_w: np.ndarray,
    model_ca: np.ndarray,
    model_w: np.ndarray,
    gt_scale: float = 1.0,
    model_scale: float = 1.0,
) -> float:
    """Handedness of the model's weighted picks, each against its nearest ground-truth pick in C-alpha pair distances:
    sum of (model sines . matched sines) over sum of (matched sines . matched sines), +1 for the ground truth's own
    conformations, -1 for their mirror images, near 0 where no ground-truth conformation is near. Distances are
    compared at each sample's own scale (``*_scale``, as :func:`collapse`), so a unit mistake is the units check's.

    >>> t = np.arange(6) * np.radians(100.0)
    >>> helix = np.stack([0.23 * np.cos(t), 0.23 * np.sin(t), 0.15 * np.arange(6)], axis=1)[None].astype(np.float32)
    >>> one = np.ones(1)
    >>> matched_handedness(helix, one, helix, one), matched_handedness(helix, one, helix * [1, 1, -1], one)
    (1.0, -1.0)
    """
    pairs = conformation_pairs(gt_ca.shape[1])
    gt_frames, _ = weighted_picks(gt_ca, gt_w, pairs)
    frames, counts = weighted_picks(model_ca, model_w, pairs)
    reference, features = (
        conformation_features(ca, f, pairs) * scale
        for ca, f, scale in ((gt_ca, gt_frames, gt_scale), (model_ca, frames, model_scale))
    )
    nearest = gt_frames[np.argmin(squared_distances(features, reference), axis=1)]
    model_sines, matched_sines = np.sin(dihedrals(model_ca[frames])), np.sin(dihedrals(gt_ca[nearest]))
    norm = float(counts @ (matched_sines**2).sum(axis=1))
    return round(float(counts @ (model_sines * matched_sines).sum(axis=1)) / norm, 12) if norm > 0 else 0.0


def chirality(
    gt_ca: np.ndarray,
    gt_w: np.ndarray,
    model_ca: np.ndarray,
    model_w: np.ndarray,
    gt_scale: float = 1.0,
    model_scale: float = 1.0,
) -> Check:
    """The ``chirality`` check (module docstring): the model's hand frame by frame against its nearest ground-truth
    conformations (:func:`matched_handedness`), or by its handedness profile where those match too little."""
    threshold = THRESHOLDS["chirality"]
    if gt_ca.shape[1] < 4:
        return Check(None, None, threshold, "fewer than 4 C-alpha atoms: no dihedral, no handedness to judge")
    reference, error = handedness_profile(gt_ca, gt_w)
    size, noise = float(np.sqrt(np.mean(reference**2))), float(np.sqrt(np.mean(error**2)))
    if size < MIN_GROUNDTRUTH_PROFILE or size < MIN_GROUNDTRUTH_PROFILE_Z * noise:
        return Check(
            None,
            None,
            threshold,
            f"the ground truth's handedness profile (mean sine of each C-alpha dihedral) has RMS {size:.3g} (its "
            f"standard error {noise:.3g}), below {MIN_GROUNDTRUTH_PROFILE:g} or {MIN_GROUNDTRUTH_PROFILE_Z:g} standard "
            "errors: it is not clearly chiral, so the model's handedness cannot be judged",
        )
    model, _ = handedness_profile(model_ca, model_w)
    handedness = float(model @ reference / (reference @ reference))
    matched = matched_handedness(gt_ca, gt_w, model_ca, model_w, gt_scale, model_scale)
    numbers = (
        f"handedness {matched:.3g} frame by frame against the nearest ground-truth conformation, {handedness:.3g} "
        f"by the profile (the model's mean dihedral sines projected on the ground truth's, RMS {size:.3g}; the "
        "ground truth +1, its mirror image -1)"
    )
    passed, why = hand_verdict(matched, handedness)
    return Check(passed, matched, threshold, f"{numbers}{why}")
