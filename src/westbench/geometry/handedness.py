"""Handedness of C-alpha chains: the estimates the ``chirality`` check (:mod:`~westbench.geometry.ensemble_checks`)
weighs, and its verdict from them.

A mirror image negates every C-alpha dihedral, so the sines of the dihedrals carry the hand. The handedness profile
(:func:`handedness_profile`: each dihedral's weighted mean sine) is an average over conformations, so a model that
samples other conformations than the ground truth can read mirror-like without being mirrored (the demo's fully
trained CG model: -0.39 on one machine). The frame-by-frame estimate
(:func:`westbench.geometry.ensemble_checks.matched_handedness`) compares each of the model's weighted picks with its
nearest ground-truth pick in C-alpha pair distances, which a mirror image leaves unchanged: like with like. On the
demo's ground truth it reads -0.63 and -0.60 for the mirrored implicit and explicit engines (profile -0.58, -0.34),
-1 for the mirrored ground truth and 0.004 for that CG model; :func:`hand_verdict` decides by it where it reads at
least :data:`ACHIRAL_HANDEDNESS` either way, and otherwise lets the profile pass a model but never fail it.
"""

from __future__ import annotations

import numpy as np

from westbench.geometry.ca_geometry import dihedrals
from westbench.geometry.chain_checks import chunks

#: Handedness: +1 for the ground truth itself, -1 for its mirror image, about 0 for an achiral model (both hands
#: alike). A model below this is clearly closer to the mirror image than to the ground truth and fails (frame by
#: frame). The demo's mirrored engines lie at -0.6 to -0.7 (profile -0.3 to -0.7), its honest ones at 0.6 (profile
#: 0.3 to 0.6), and its undertrained CG model, whose prior has no chiral term, near 0 (achiral: reported, and left to
#: the scores, which see dihedrals that differ); the noise for a model of 100 effective frames is about 0.05.
MAX_MIRROR_HANDEDNESS = -0.25
#: Below this |handedness| frame by frame, the model's conformations match too few of the ground truth's to compare
#: hands; the profile then passes it (called nearly achiral below this too) or leaves it not judged.
ACHIRAL_HANDEDNESS = 0.25


def handedness_profile(ca: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The weighted mean sine of every C-alpha dihedral (n_residues - 3,), and its standard error (frames taken as
    independent): a mirror image negates the profile, an achiral distribution has it 0; chunk by chunk.

    >>> t = np.arange(6) * np.radians(100.0)
    >>> helix = np.stack([0.23 * np.cos(t), 0.23 * np.sin(t), 0.15 * np.arange(6)], axis=1)[None].astype(np.float32)
    >>> profile, error = handedness_profile(helix, np.ones(1))
    >>> profile.round(2).tolist(), error.round(6).tolist()
    ([0.77, 0.77, 0.77], [0.0, 0.0, 0.0])
    """
    n = ca.shape[1]
    quads = max(n - 3, 0)  # dihedrals of consecutive C-alphas
    support = np.flatnonzero(weights > 0)
    w = weights / weights[support].sum()
    first, second, square = (np.zeros(quads) for _ in range(3))  # sums of w sin, w^2 sin, w^2 sin^2
    for part in chunks(len(support), 3 * n + 2 * quads):
        rows = support[part]
        sines = np.sin(dihedrals(ca[rows]))  # float64: rigid motion moves the profile by rounding only (1e-16)
        first += w[rows] @ sines
        second += w[rows] ** 2 @ sines
        square += w[rows] ** 2 @ sines**2
    variance = square - 2 * first * second + first**2 * float(np.sum(w[support] ** 2))
    return first, np.sqrt(np.maximum(variance, 0.0))


def hand_verdict(matched: float, profile: float) -> tuple[bool | None, str]:
    """The chirality verdict from the two handedness estimates and what the message adds: decided frame by frame
    where ``matched`` reads at least :data:`ACHIRAL_HANDEDNESS` either way (like compared with like); else the
    ``profile`` can pass the model but not fail it (a mirror-like profile is then not judged: None).

    >>> hand_verdict(-0.6, -0.3)[0], hand_verdict(0.004, -0.39)[0], hand_verdict(0.1, 0.05)[0]
    (False, None, True)
    """
    if abs(matched) >= ACHIRAL_HANDEDNESS:  # its conformations match the ground truth's: hands compared like for like
        if matched > MAX_MIRROR_HANDEDNESS:
            return True, ""
        return False, (
            ": the model is closer to the mirror image of the protein than to the protein; check the coordinates' "
            "handedness (a reflected axis or structure) and, for a CG model, the sign of its chiral term"
        )
    if profile > MAX_MIRROR_HANDEDNESS:
        achiral = (
            ": nearly achiral (both hands alike; a CG model without a chiral term samples both), not a mirror image"
        )
        return True, achiral if abs(profile) < ACHIRAL_HANDEDNESS else ""
    return None, (
        ": mirror-like on average, but frame by frame its conformations match none of the ground truth's closely "
        "enough to compare hands (it samples others, as a model that learned little can): not judged"
    )
