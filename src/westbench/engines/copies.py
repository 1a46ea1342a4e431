"""Non-interacting copies of an implicit-solvent system in one OpenMM context (walker batching).

A GPU steps 128 copies of a 138-atom peptide in about the time it steps one, so an iteration's
walkers run together as copies of the prepared system. The physics stays that of the system as
prepared (``NoCutoff``) under a stated rule:

- the copy system's nonbonded and GB forces use ``CutoffNonPeriodic`` with cutoff ``C`` and the
  reaction-field dielectric 1 (then Coulomb forces are exactly those without cutoff, energies shift
  by a constant per pair; GB pair terms are untouched inside the cutoff), so every intramolecular
  pair must lie inside ``C``;
- copies sit on a grid ``2 C`` apart, so copies never see each other while every walker fits in a
  sphere of radius ``C / 2`` about its centroid.

**Extent rule.** A walker's radius ``R`` is its largest atom distance from its centroid (its
largest intramolecular distance is at most ``2 R``). A walker joins a batch only if
``2 R + guard <= C``; otherwise it runs alone in the single-molecule (``NoCutoff``) context. At every
saved frame the engine checks ``2 R < C`` for each copy and ``|c_i - c_j| - R_i - R_j > C`` for
every pair of copies; a walker that breaks either is propagated again, alone, with its own seed.

The copy system drops the ``CMMotionRemover``: removing a molecule's centre-of-mass velocity is a
uniform shift that leaves its internal motion unchanged, and one remover for the whole context
would couple the copies. The engine removes each copy's centre-of-mass velocity at segment ends.

Examples
--------
>>> import openmm
>>> system = openmm.System()
>>> for _ in range(2): _ = system.addParticle(12.0)
>>> bonds = openmm.HarmonicBondForce(); _ = bonds.addBond(0, 1, 0.15, 1000.0); _ = system.addForce(bonds)
>>> copies = copy_system(system, 3, cutoff_nm=5.0)
>>> copies.getNumParticles(), copies.getForce(0).getNumBonds()
(6, 3)
>>> slot_centers(3, 5.0).shape
(3, 3)
"""

from __future__ import annotations

import math

import numpy as np
import openmm
from openmm import unit

#: Force classes the copy builder knows how to replicate (the amber14 + GBn2 implicit system's).
SUPPORTED = (
    "HarmonicBondForce",
    "HarmonicAngleForce",
    "PeriodicTorsionForce",
    "CMAPTorsionForce",
    "NonbondedForce",
    "CustomGBForce",
    "CMMotionRemover",
)


class CopyError(ValueError):
    """The system cannot be copied exactly (a force type or feature the builder does not handle)."""


def _clone(force):
    return openmm.XmlSerializer.deserialize(openmm.XmlSerializer.serialize(force))


def copy_system(system: openmm.System, n_copies: int, cutoff_nm: float) -> openmm.System:
    """A system of ``n_copies`` non-interacting copies of a non-periodic ``system`` (see the module docstring).

    Raises
    ------
    CopyError
        For periodic systems, virtual sites, or forces outside :data:`SUPPORTED`.
    """
    _check_copyable(system)
    n = system.getNumParticles()
    out = openmm.System()
    masses = [system.getParticleMass(i) for i in range(n)]
    constraints = [system.getConstraintParameters(i) for i in range(system.getNumConstraints())]
    for k in range(n_copies):
        off = k * n
        for mass in masses:
            out.addParticle(mass)
        for i, j, d in constraints:
            out.addConstraint(i + off, j + off, d)
    cutoff = cutoff_nm * unit.nanometer
    for force in system.getForces():
        name = type(force).__name__
        if name == "CMMotionRemover":
            continue
        new = _clone(force)
        for k in range(1, n_copies):
            _add_copy(force, new, name, k * n, n)
        _set_cutoff(force, new, name, cutoff)
        out.addForce(new)
    return out


def _check_copyable(system: openmm.System) -> None:
    """Refuse periodic systems, virtual sites and forces outside :data:`SUPPORTED`."""
    if system.usesPeriodicBoundaryConditions():
        raise CopyError("copies are for implicit-solvent (non-periodic) systems")
    n = system.getNumParticles()
    if any(system.isVirtualSite(i) for i in range(n)):
        raise CopyError("systems with virtual sites are not copied")
    names = [type(f).__name__ for f in system.getForces()]
    unknown = sorted(set(names) - set(SUPPORTED))
    if unknown:
        raise CopyError(f"cannot copy forces {unknown} (supported: {', '.join(SUPPORTED)})")


def _add_copy(force, new, name: str, off: int, n: int) -> None:
    """Add to ``new`` the terms of ``force`` (named ``name``) for the copy whose particles start at ``off``."""
    if name == "HarmonicBondForce":
        for b in range(force.getNumBonds()):
            i, j, *p = force.getBondParameters(b)
            new.addBond(i + off, j + off, *p)
    elif name == "HarmonicAngleForce":
        for a in range(force.getNumAngles()):
            i, j, l, *p = force.getAngleParameters(a)
            new.addAngle(i + off, j + off, l + off, *p)
    elif name == "PeriodicTorsionForce":
        for t in range(force.getNumTorsions()):
            i, j, l, m, *p = force.getTorsionParameters(t)
            new.addTorsion(i + off, j + off, l + off, m + off, *p)
    elif name == "CMAPTorsionForce":
        for t in range(force.getNumTorsions()):
            cmap, *atoms = force.getTorsionParameters(t)
            new.addTorsion(cmap, *[a + off for a in atoms])
    elif name == "NonbondedForce":
        for i in range(n):
            new.addParticle(*force.getParticleParameters(i))
        for e in range(force.getNumExceptions()):
            i, j, *p = force.getExceptionParameters(e)
            new.addException(i + off, j + off, *p)
    elif name == "CustomGBForce":
        for i in range(n):
            new.addParticle(force.getParticleParameters(i))
        for e in range(force.getNumExclusions()):
            i, j = force.getExclusionParticles(e)
            new.addExclusion(i + off, j + off)


def _set_cutoff(force, new, name: str, cutoff) -> None:
    """The copies' nonbonded forces get a non-periodic cutoff (Coulomb exact inside it, no switching)."""
    if name == "NonbondedForce":
        if force.getNumParticleParameterOffsets() or force.getNumExceptionParameterOffsets():
            raise CopyError("NonbondedForce parameter offsets are not copied")
        new.setNonbondedMethod(openmm.NonbondedForce.CutoffNonPeriodic)
        new.setCutoffDistance(cutoff)
        new.setReactionFieldDielectric(1.0)  # Coulomb forces exact inside the cutoff
        new.setUseSwitchingFunction(False)
    elif name == "CustomGBForce":
        new.setNonbondedMethod(openmm.CustomGBForce.CutoffNonPeriodic)
        new.setCutoffDistance(cutoff)


def slot_centers(n_copies: int, cutoff_nm: float) -> np.ndarray:
    """Centres (n_copies, 3) nm of the copy slots: a cubic grid ``2 * cutoff`` apart, centred on the origin,
    central slots first (a grid, not a line, and the small batches nearest the origin keep coordinates
    small for single-precision force kernels: float32 positions 25 nm out carry ~2e-6 nm of rounding).

    Examples
    --------
    >>> slot_centers(1, 5.0).tolist()
    [[0.0, 0.0, 0.0]]
    >>> c = slot_centers(27, 5.0)
    >>> c[0].tolist(), round(float(np.linalg.norm(c, axis=1).max()), 2)
    ([0.0, 0.0, 0.0], 17.32)
    """
    side = max(1, math.ceil(n_copies ** (1.0 / 3.0) - 1e-9))
    grid = np.stack(np.meshgrid(*[np.arange(side)] * 3, indexing="ij"), -1).reshape(-1, 3)
    centers = (grid - (side - 1) / 2.0) * 2.0 * cutoff_nm
    order = np.argsort(np.round((centers**2).sum(axis=1), 6), kind="stable")
    return centers[order][:n_copies]


def force_check(
    system: openmm.System, walkers, cutoff_nm: float, platform: str = "Reference", properties: dict | None = None
) -> dict:
    """Forces of each walker as a copy in one copy context against the single-molecule ``system`` placed at
    the same slot offset, on the same platform: the copy scheme's own error, not the platform's precision.

    The error of a copy is its largest per-atom force difference divided by the RMS per-atom force of
    the single molecule (a per-atom relative error blows up on atoms whose force nearly cancels).

    Parameters
    ----------
    system : openmm.System
        The prepared (non-periodic, ``NoCutoff``) system.
    walkers : sequence of arrays (n_atoms, 3) nm
        One conformation per copy.
    cutoff_nm : float
        The copy cutoff (:func:`copy_system`).
    platform, properties
        The OpenMM platform both contexts run on, and its properties (e.g. ``{"Precision": "mixed"}``).

    Returns
    -------
    dict
        ``max_rms_relative_error``, ``worst_copy``, ``per_copy`` (list), ``platform``.

    Examples
    --------
    >>> system = openmm.System()
    >>> for _ in range(2): _ = system.addParticle(12.0)
    >>> bonds = openmm.HarmonicBondForce(); _ = bonds.addBond(0, 1, 0.15, 1000.0); _ = system.addForce(bonds)
    >>> pair = np.array([[0.0, 0.0, 0.0], [0.2, 0.0, 0.0]])
    >>> check = force_check(system, [pair, pair * 0.9], cutoff_nm=5.0)
    >>> check["max_rms_relative_error"] < 1e-12, len(check["per_copy"])
    (True, 2)
    """
    walkers = [np.asarray(w, dtype=np.float64) for w in walkers]
    n = len(walkers)
    centers = slot_centers(n, cutoff_nm)
    placed = [w - w.mean(0) + c for w, c in zip(walkers, centers)]
    chosen = openmm.Platform.getPlatformByName(platform)
    copies = openmm.Context(
        copy_system(system, n, cutoff_nm), openmm.VerletIntegrator(0.001), chosen, dict(properties or {})
    )
    copies.setPositions(np.concatenate(placed))
    packed = (
        copies.getState(getForces=True)
        .getForces(asNumpy=True)
        .value_in_unit(unit.kilojoule_per_mole / unit.nanometer)
        .reshape(n, -1, 3)
    )
    single = openmm.Context(system, openmm.VerletIntegrator(0.001), chosen, dict(properties or {}))
    errors = []
    for x, f in zip(placed, packed):
        single.setPositions(x)
        reference = (
            single.getState(getForces=True)
            .getForces(asNumpy=True)
            .value_in_unit(unit.kilojoule_per_mole / unit.nanometer)
        )
        rms = float(np.sqrt((reference**2).sum(axis=1).mean())) or 1.0
        errors.append(float(np.linalg.norm(f - reference, axis=1).max() / rms))
    return {
        "max_rms_relative_error": max(errors),
        "worst_copy": int(np.argmax(errors)),
        "per_copy": errors,
        "platform": chosen.getName(),
    }


def radii(positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Centroids (..., 3) and radii (...) of conformations (..., n_atoms, 3): largest distance from the centroid."""
    positions = np.asarray(positions, dtype=np.float64)
    centroids = positions.mean(axis=-2)
    return centroids, np.linalg.norm(positions - centroids[..., None, :], axis=-1).max(axis=-1)


def fits(positions: np.ndarray, cutoff_nm: float, guard_nm: float) -> bool:
    """Whether a conformation (n_atoms, 3) may join a batch: ``2 R + guard <= cutoff``.

    Examples
    --------
    >>> line = np.zeros((3, 3)); line[:, 0] = [0.0, 1.0, 2.0]
    >>> fits(line, 5.0, 1.0), fits(3 * line, 5.0, 1.0)
    (True, False)
    """
    return bool(2.0 * radii(positions)[1] + guard_nm <= cutoff_nm)


def violations(copies: np.ndarray, cutoff_nm: float) -> np.ndarray:
    """Copies (n_copies, n_atoms, 3) that break the rule: ``2 R >= cutoff`` or a neighbour within the cutoff.

    Examples
    --------
    >>> a = np.zeros((2, 1, 3)); a[1, 0, 0] = 4.0
    >>> violations(a, 5.0).tolist(), violations(2 * a, 5.0).tolist()
    ([True, True], [False, False])
    >>> b = 2 * a; b[0, 0, 0] = np.nan
    >>> violations(b, 5.0).tolist()
    [True, False]
    """
    centroids, r = radii(copies)
    finite = np.isfinite(r)
    bad = 2.0 * r >= cutoff_nm
    if len(copies) > 1:
        gap = np.linalg.norm(centroids[:, None] - centroids[None], axis=-1) - r[:, None] - r[None]
        np.fill_diagonal(gap, np.inf)
        # A copy whose coordinates are not finite is flagged itself; it does not flag the others.
        gap[:, ~finite] = np.inf
        bad |= ~(gap > cutoff_nm).all(axis=1)
    return bad | ~finite
