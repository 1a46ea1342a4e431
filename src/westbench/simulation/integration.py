"""The published Langevin integrator and the bounded energy minimization every stage uses.

Examples
--------
>>> integrator = make_integrator({}, seed=7)
>>> round(integrator.getStepSize()._value, 4), integrator.getRandomNumberSeed()
(0.004, 7)
"""

from __future__ import annotations

import logging
import time
from typing import Mapping

import numpy as np
import openmm
from openmm import unit

from westbench.config import section_defaults
from westbench.simulation.platforms import create_context

log = logging.getLogger(__name__)

DEFAULTS = section_defaults("preparation")


def make_integrator(settings: Mapping, seed: int = 0) -> openmm.LangevinMiddleIntegrator:
    """The published Langevin integrator (temperature, friction, time step, constraint tolerance: the
    :data:`~westbench.simulation.INTEGRATOR_KEYS` of ``settings``; the schema's defaults for those it lacks)."""
    s = {**DEFAULTS, **settings}
    integrator = openmm.LangevinMiddleIntegrator(
        s["temperature_k"] * unit.kelvin, s["friction_per_ps"] / unit.picosecond, s["timestep_fs"] * unit.femtosecond
    )
    integrator.setConstraintTolerance(s["constraint_tolerance"])
    integrator.setRandomNumberSeed(seed)
    return integrator


def minimize(
    system: openmm.System,
    positions,
    settings: Mapping,
    platform: Mapping | None = None,
    threads: int | None = None,
    seed: int = 0,
) -> tuple[openmm.State, dict]:
    """Minimize the energy (bounded by ``minimize_max_iterations``) and return the state.

    Returns
    -------
    state, record
        The minimized state (positions, box, energy) and a dict of energies,
        iterations cap, platform and seconds taken.
    """
    s = {**DEFAULTS, **settings}
    context, platform_name = create_context(system, make_integrator(s, seed), platform or {}, threads)
    context.setPositions(positions)
    start = time.perf_counter()
    before = context.getState(getEnergy=True).getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)
    log.info(
        "minimizing %d atoms on %s (cap %s iterations)",
        system.getNumParticles(),
        platform_name,
        s["minimize_max_iterations"] or "none",
    )
    openmm.LocalEnergyMinimizer.minimize(
        context,
        s["minimize_tolerance_kj_mol_nm"] * unit.kilojoule_per_mole / unit.nanometer,
        s["minimize_max_iterations"],
    )
    state = context.getState(
        getPositions=True, getVelocities=True, getEnergy=True, getParameters=True, enforcePeriodicBox=False
    )
    after = state.getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)
    record = {
        "platform": platform_name,
        "energy_before_kj_mol": before,
        "energy_after_kj_mol": after,
        "minimize_tolerance_kj_mol_nm": s["minimize_tolerance_kj_mol_nm"],
        "minimize_max_iterations": s["minimize_max_iterations"],
        "minimize_seconds": round(time.perf_counter() - start, 3),
    }
    log.info("minimized in %.1f s: %.1f -> %.1f kJ/mol", record["minimize_seconds"], before, after)
    if not np.isfinite(after):
        raise FloatingPointError(f"energy is {after} after minimization: the structure has overlapping atoms")
    return state, record
