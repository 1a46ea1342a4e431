"""Engine sanity before scoring: is an engine's sample a protein at all, and the ground truth's protein?

Four checks of a model's C-alpha frames, each independent of how many frames the ground truth holds, so that
a run whose ground truth is too small to separate anything still names an engine that is plainly broken:

``collapse`` (:mod:`~westbench.geometry.ensemble_checks`)
    Far fewer distinct conformations, or a far smaller spread, than the ground truth, under the model's
    weights: a WE run whose weight rests on a few frames is judged on its weights. Conformations are compared
    by the RMS difference of their C-alpha pair distances (rotation- and translation-free); a few hundred
    frames are picked by weight (systematic sampling over the frames in an order fixed by their content, so
    neither the row order, a frame written twice, a zero-weight frame nor a constant factor on the weights
    changes them). Distinct conformations = 1 / P(two picks are the same conformation); spread = the mean
    distance between two picks.
``chirality`` (:mod:`~westbench.geometry.ensemble_checks`)
    The handedness of the C-alpha dihedrals against the ground truth's: each weighted pick of the model's frames
    against its nearest ground-truth conformation in pair distances (which a mirror image leaves unchanged), the
    dihedral sines compared like for like; where too few conformations match, the weighted mean sine of each
    dihedral (the handedness profile) projected on the ground truth's, which can pass a model but not fail it. A
    model clearly closer to the mirror image fails. Decided only where the ground truth is clearly chiral (a
    profile well above its noise); else ``passed`` is None with the reason.
``units`` (:mod:`~westbench.geometry.chain_checks`)
    The scale of the chain: the weighted median consecutive C-alpha distance (3.8 Angstrom; 2.9 before a
    cis-proline), on the consecutive pairs that are bonded in the native structure (or the ground truth), so
    that a chain break is not taken for a stretched bond. Catches Angstrom read as nm and its inverse, and
    Bohr read as Angstrom.
``exploded`` (:mod:`~westbench.geometry.chain_checks`)
    The weight on frames whose geometry is broken at the model's own scale (so a unit mistake is reported once,
    as ``units``): a bonded C-alpha distance far out of range, or a radius of gyration far beyond the larger of
    the ground truth's and the fully extended chain's.

Every threshold is a module constant of those two modules whose docstring says why that value: the smallest
real mistake it catches and the largest honest engine it must pass (CG models, implicit solvent, short WE
runs). Memory is bounded by bytes, not by frames: a 600-residue protein of 100,000 frames is read chunk by
chunk.

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> def chain(n, frames):  # a right-handed helix of C-alphas with thermal noise (nm)
...     t = np.arange(n) * np.radians(100.0)
...     helix = np.stack([0.23 * np.cos(t), 0.23 * np.sin(t), 0.15 * np.arange(n)], axis=1)
...     return (helix + rng.normal(0, 0.02, (frames, n, 3))).astype(np.float32)
>>> groundtruth, model = {"ca": chain(12, 300)}, {"ca": chain(12, 500)}
>>> engine_sanity(groundtruth, model).failed
[]
>>> mirrored = {"ca": model["ca"] * np.array([1, 1, -1], np.float32)}
>>> engine_sanity(groundtruth, mirrored).failed
['chirality']
>>> report = engine_sanity(groundtruth, {"ca": model["ca"] * 10})  # Angstrom read as nm
>>> report.failed, report.checks["units"].value > 30
(['units'], True)
>>> report = engine_sanity(groundtruth, {"ca": np.repeat(model["ca"][:1], 500, axis=0)})  # one frame repeated
>>> report.failed, report.checks["collapse"].value
(['collapse'], 1.0)
>>> sorted(report.to_dict())
['checks', 'failed', 'passed']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from westbench.errors import WestbenchError
from westbench.geometry import chain_checks, ensemble_checks
from westbench.geometry.chain_checks import Check, bonded_pairs, chain_geometry, exploded, scale_of, units
from westbench.geometry.ensemble_checks import chirality, collapse

#: The checks, in the order they are reported.
CHECKS = ("collapse", "chirality", "units", "exploded")
#: Each check's threshold, in words (the ``threshold`` of every check's record).
THRESHOLDS = {**ensemble_checks.THRESHOLDS, **chain_checks.THRESHOLDS}


@dataclass(frozen=True)
class SanityReport:
    """The four checks of one engine (:data:`CHECKS`)."""

    checks: dict

    @property
    def failed(self) -> list[str]:
        """The checks that failed, in :data:`CHECKS` order."""
        return [name for name in CHECKS if name in self.checks and self.checks[name].passed is False]

    @property
    def passed(self) -> bool:
        """No check failed (a check that could not be decided does not fail)."""
        return not self.failed

    def reason(self) -> str:
        """The failed checks and their messages in one sentence ("" when none failed)."""
        if not self.failed:
            return ""
        return "failed engine sanity: " + "; ".join(f"{name}: {self.checks[name].message}" for name in self.failed)

    def to_dict(self) -> dict:
        """``{"passed": bool, "failed": [names], "checks": {name: {passed, value, threshold, message}}}``."""
        return {
            "passed": self.passed,
            "failed": self.failed,
            "checks": {name: self.checks[name].to_dict() for name in CHECKS if name in self.checks},
        }


def not_checked(reason: str) -> SanityReport:
    """A report whose every check is undecided for ``reason`` (no frame to check)."""
    return SanityReport({name: Check(None, None, THRESHOLDS[name], reason) for name in CHECKS})


def engine_sanity(
    groundtruth: Mapping, model: Mapping, weights=None, native_ca: np.ndarray | None = None
) -> SanityReport:
    """The sanity checks of a model's frames against the ground truth (see the module docstring).

    Parameters
    ----------
    groundtruth, model : mapping
        Frames (:mod:`westbench.io.frames`): ``ca`` (n, residues, 3) in nm; ``weight`` (uniform when absent).
    weights : array (n_model,), optional
        The model's frame weights (its WE weights); ``model["weight"]`` when None.
    native_ca : array (residues, 3), optional
        The native (prepared) structure's C-alpha positions in nm: which consecutive pairs are bonded (else the
        ground truth's median distances decide).

    Returns
    -------
    SanityReport
    """
    gt_ca, model_ca = np.asarray(groundtruth["ca"]), np.asarray(model["ca"])
    if gt_ca.ndim != 3 or model_ca.ndim != 3 or gt_ca.shape[1:] != model_ca.shape[1:]:
        raise WestbenchError(
            f"engine sanity compares C-alpha frames of one protein: the ground truth's are {gt_ca.shape}, the "
            f"model's {model_ca.shape}; score frames of the protein the ground truth holds"
        )
    gt_w = _weights(groundtruth.get("weight"), len(gt_ca))
    model_w = _weights(model.get("weight") if weights is None else weights, len(model_ca))
    if gt_w is None or model_w is None:
        return not_checked(
            "no frame to check: "
            + ("the ground truth" if gt_w is None else "the model")
            + " has no frame of positive weight"
        )
    native = None if native_ca is None else np.asarray(native_ca, dtype=np.float64).reshape(-1, 3)
    if native is not None and len(native) != gt_ca.shape[1]:
        raise WestbenchError(
            f"the native structure has {len(native)} C-alpha atoms, the frames {gt_ca.shape[1]}: give the "
            "prepared structure of the protein scored"
        )
    bonded = bonded_pairs(gt_ca, gt_w, native)
    gt_geometry = chain_geometry(gt_ca, gt_w, bonded)
    model_geometry = chain_geometry(model_ca, model_w, bonded)
    scales = scale_of(gt_geometry, bonded), scale_of(model_geometry, bonded)  # a unit mistake is the units check's
    return SanityReport(
        {
            "collapse": collapse(gt_ca, gt_w, model_ca, model_w, *scales),
            "chirality": chirality(gt_ca, gt_w, model_ca, model_w, *scales),
            "units": units(gt_geometry, model_geometry, bonded),
            "exploded": exploded(gt_geometry, model_geometry, gt_ca.shape[1], bonded),
        }
    )


def _weights(weights, n: int) -> np.ndarray | None:
    """Normalized float64 weights (uniform when None), or None when no frame has positive weight."""
    if n == 0:
        return None
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64).ravel()
    if len(w) != n:
        raise WestbenchError(f"engine sanity: {len(w)} weights for {n} frames")
    w = np.where(np.isfinite(w) & (w > 0), w, 0.0)
    total = w.sum()
    return w / total if total > 0 else None
