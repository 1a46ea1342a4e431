"""OpenMM engines: implicit solvent and explicit solvent, one Context per worker.

Examples
--------
>>> import tempfile, os, openmm
>>> from westbench.config import ProteinSpec
>>> from westbench.prepare import build_system, fix_structure, minimize, write_system
>>> from westbench.structures.peptide import write_extended_peptide
>>> folder = tempfile.mkdtemp(); path = os.path.join(folder, "in.pdb")
>>> write_extended_peptide("GYDPETGTWG", path)
>>> spec = ProteinSpec("c", "c", None, "GYDPETGTWG", None, None, "sequence", None)
>>> top, pos, _ = fix_structure(path, spec)
>>> system, modeller, _ = build_system("implicit", top, pos, {})
>>> state, _ = minimize(system, modeller.positions, {"minimize_max_iterations": 10})
>>> names = [os.path.join(folder, n) for n in ("s.xml", "st.xml", "s.pdb")]
>>> write_system(system, state, modeller.topology, *names)
>>> engine = OpenMMEngine(*names, platform={"name": "CPU", "deterministic": True})
>>> result = engine.propagate([engine.basis_state()], n_steps=20, save_every=10, seeds=[7])[0]
>>> result.frames.shape, result.status
((2, 10, 3), 'ok')
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import openmm
from openmm import app, unit

from westbench.engines.base import Engine, SegmentResult, WalkerState
from westbench.features import ca_atom_indices
from westbench.platforms import create_context
from westbench.prepare.systems import make_integrator

log = logging.getLogger(__name__)


class OpenMMEngine(Engine):
    """Langevin dynamics of a serialized OpenMM system (implicit or explicit solvent).

    Parameters
    ----------
    system_xml, state_xml, topology_pdb : path
        The prepared system, its minimized state and topology (``results/<protein>/prepare/``).
    integrator : mapping, optional
        ``temperature_k``, ``friction_per_ps``, ``timestep_fs``, ``constraint_tolerance``.
    platform : mapping, optional
        The ``platform`` config section.
    threads : int, optional
    """

    def __init__(self, system_xml: str | Path, state_xml: str | Path, topology_pdb: str | Path,
                 integrator: Mapping | None = None, platform: Mapping | None = None, threads: int | None = None):
        self.system = openmm.XmlSerializer.deserialize(Path(system_xml).read_text())
        self.state = openmm.XmlSerializer.deserialize(Path(state_xml).read_text())
        self.ca = np.array(ca_atom_indices(app.PDBFile(str(topology_pdb)).topology))
        self.settings = dict(integrator or {})
        self.platform, self.threads = dict(platform or {}), threads
        self._context = None

    @property
    def context(self) -> openmm.Context:
        """Created on the first segment, in the worker process that runs it.

        WESTPA's master also builds the engine (for basis-state progress coordinates); an OpenMM
        context made there would be inherited by forked workers, whose copies of its thread
        pools deadlock (seen with the CPU platform's PME).
        """
        if self._context is None:
            self.integrator = make_integrator(self.settings)
            self._context, self.platform_name = create_context(self.system, self.integrator, self.platform, self.threads)
            self.temperature = self.integrator.getTemperature()
            log.info("OpenMM context ready: %d atoms on %s", self.system.getNumParticles(), self.platform_name)
        return self._context

    def basis_state(self) -> WalkerState:
        box = self.state.getPeriodicBoxVectors(asNumpy=True)
        return WalkerState(self.state.getPositions(asNumpy=True).value_in_unit(unit.nanometer), None,
                           box.value_in_unit(unit.nanometer) if self.system.usesPeriodicBoundaryConditions() else None)

    def beads(self, state: WalkerState) -> np.ndarray:
        return np.asarray(state.positions)[self.ca]

    def _load(self, start: WalkerState, seed: int) -> None:
        # A new seed takes effect when the context is reinitialized; it makes every segment
        # reproducible whatever worker runs it and in whatever order.
        context = self.context
        self.integrator.setRandomNumberSeed(int(seed))
        context.reinitialize()
        if start.box is not None:
            self.context.setPeriodicBoxVectors(*start.box)
        self.context.setPositions(start.positions)
        if start.velocities is None:
            self.context.setVelocitiesToTemperature(self.temperature, int(seed))
        else:
            self.context.setVelocities(start.velocities)

    def propagate(self, starts: Sequence[WalkerState], n_steps: int, save_every: int,
                  seeds: Sequence[int]) -> list[SegmentResult]:
        results = []
        for start, seed in zip(starts, seeds):
            self._load(start, seed)
            frames = []
            for _ in range(n_steps // save_every):
                self.integrator.step(save_every)
                positions = self.context.getState(getPositions=True).getPositions(asNumpy=True)
                frames.append(positions.value_in_unit(unit.nanometer)[self.ca])
            final = self.context.getState(getPositions=True, getVelocities=True)
            box = final.getPeriodicBoxVectors(asNumpy=True)
            state = WalkerState(final.getPositions(asNumpy=True).value_in_unit(unit.nanometer),
                                final.getVelocities(asNumpy=True).value_in_unit(unit.nanometer / unit.picosecond),
                                box.value_in_unit(unit.nanometer) if start.box is not None else None)
            frames = np.asarray(frames, dtype=np.float32)
            status = "ok" if np.isfinite(frames).all() else "exploded"
            results.append(SegmentResult(frames, state, status, "" if status == "ok" else "non-finite positions"))
        return results
