"""A harmonic C-alpha chain simulated by the reference engine (OpenMM), with its forces.

A CG toy with a known answer.
"""

import numpy as np
import openmm
from openmm import unit

from westbench.engines.base import Engine

BOND_NM, BOND_K = 0.38, 20000.0  # kJ/mol/nm^2: bond std sqrt(kT / k) = 0.011 nm at 300 K
ANGLE_RAD, ANGLE_K = 2.0, 20.0  # kJ/mol/rad^2
MASS = 100.0


def harmonic_chain(n_beads: int = 8, n_frames: int = 400, every: int = 25, seed: int = 1, attraction: float = 0.0):
    """Positions (n_frames, n, 3) nm and forces (kJ/mol/nm) of a Langevin run at 300 K, 4 fs, 1/ps.

    ``attraction`` adds a Gaussian well ``-attraction * exp(-r^2 / 0.5 nm^2)`` between beads three or more
    apart: structure beyond bonds and angles for the network to learn.
    """
    system = openmm.System()
    for _ in range(n_beads):
        system.addParticle(MASS)
    bonds = openmm.HarmonicBondForce()
    for i in range(n_beads - 1):
        bonds.addBond(i, i + 1, BOND_NM, BOND_K)
    angles = openmm.HarmonicAngleForce()
    for i in range(n_beads - 2):
        angles.addAngle(i, i + 1, i + 2, ANGLE_RAD, ANGLE_K)
    system.addForce(bonds)
    system.addForce(angles)
    if attraction:
        well = openmm.CustomBondForce(f"-{attraction} * exp(-r^2 / 0.5)")
        for i in range(n_beads):
            for j in range(i + 3, n_beads):
                well.addBond(i, j, [])
        system.addForce(well)
    integrator = openmm.LangevinMiddleIntegrator(300 * unit.kelvin, 1 / unit.picosecond, 4 * unit.femtosecond)
    integrator.setRandomNumberSeed(seed)
    context = openmm.Context(system, integrator, openmm.Platform.getPlatformByName("Reference"))
    start = np.zeros((n_beads, 3))
    start[:, 0] = BOND_NM * np.arange(n_beads) * np.sin(ANGLE_RAD / 2)
    start[1::2, 1] = BOND_NM * np.cos(ANGLE_RAD / 2)
    context.setPositions(start)
    context.setVelocitiesToTemperature(300 * unit.kelvin, seed)
    integrator.step(2000)
    positions, forces = [], []
    for _ in range(n_frames):
        integrator.step(every)
        state = context.getState(getPositions=True, getForces=True)
        positions.append(state.getPositions(asNumpy=True).value_in_unit(unit.nanometer))
        forces.append(state.getForces(asNumpy=True).value_in_unit(unit.kilojoule_per_mole / unit.nanometer))
    return np.array(positions, dtype=np.float32), np.array(forces, dtype=np.float32), start


class CountingCGEngine(Engine):
    """Wraps a CG engine and appends the size of every propagate call to ``calls_dir``/calls.txt (checks batching).

    A folder, not a file, in the options: the run's inputs fingerprint hashes every file its settings name.
    """

    def __init__(self, calls_dir: str, **options):
        from pathlib import Path

        from westbench.cg.engine import CGEngine

        self.inner, self.calls_file = CGEngine(**options), Path(calls_dir) / "calls.txt"

    def basis_state(self):
        return self.inner.basis_state()

    def beads(self, state):
        return self.inner.beads(state)

    def propagate(self, starts, n_steps, save_every, seeds):
        with open(self.calls_file, "a") as handle:
            handle.write(f"{len(starts)}\n")
        return self.inner.propagate(starts, n_steps, save_every, seeds)
