"""OpenMM engines: implicit and explicit solvent; an iteration's walkers propagate in batches.

A batch is a fixed group of an iteration's segments (segment ids ``k*B .. k*B+B-1`` for batch size
``B``, see :mod:`westbench.we.propagator`) with its own seed; every batch costs one context reseed
(``reinitialize``: OpenMM reads an integrator's seed only there), never one per segment unless
``B`` is 1.

- **Implicit solvent, B > 1**: the batch's walkers run together as ``B`` non-interacting copies in one
  context (:mod:`westbench.engines.copies`: cutoff holding every intramolecular pair, copies ``2 C``
  apart, the extent rule; a walker that does not fit, or breaks the rule during the segment, runs
  alone in the single-molecule context with its own seed). Walker ``i`` sits in copy slot ``i mod B``
  and its noise depends only on the batch seed and its slot, not on the other walkers.
- **Explicit solvent, or B = 1**: one context per worker, reused: the batch's walkers run one after
  another after one reseed (explicit solvent cannot be packed into copies; several contexts on
  one GPU would compete for the same SMs, and the reseed, 0.2 s on an H200, is what one context per
  batch amortizes).

``batch_walkers``: ``auto`` (1 on CPU/Reference, up to ``max_walkers`` on a GPU, see
:func:`westbench.runtime.devices.resolve_batch_walkers`) or an integer.

Examples
--------
>>> import tempfile, os, openmm
>>> from westbench.config import ProteinSpec
>>> from westbench.prepare import fix_structure
>>> from westbench.simulation.systems import build_system, write_system
>>> from westbench.simulation.integration import minimize
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
import math
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import openmm
from openmm import app, unit

from westbench.config import default, section_defaults
from westbench.constants import BOLTZMANN_KJ_MOL_K
from westbench.engines import copies as copy_scheme
from westbench.engines.base import Engine, SegmentResult, WalkerState
from westbench.geometry.features import ca_atom_indices
from westbench.runtime.devices import is_gpu_platform, resolve_batch_walkers, worker_device
from westbench.simulation.integration import make_integrator
from westbench.simulation.platforms import context_record, create_context

log = logging.getLogger(__name__)

#: Smallest copy cutoff (nm); see :func:`copy_cutoff`.
MIN_COPY_CUTOFF_NM = 5.0


def copy_cutoff(positions: np.ndarray, guard_nm: float) -> float:
    """Default copy cutoff (nm): at least 5 nm and twice the basis structure's radius plus two guards.

    Examples
    --------
    >>> copy_cutoff(np.zeros((3, 3)), 1.0), copy_cutoff(np.array([[0.0, 0, 0], [6.0, 0, 0]]), 1.0)
    (5.0, 8.0)
    """
    return float(max(MIN_COPY_CUTOFF_NM, math.ceil(2.0 * copy_scheme.radii(positions)[1] + 2.0 * guard_nm)))


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
    batch_walkers : "auto" or int
        Walkers per batch (``we.batch_walkers``).
    max_walkers : int
        What ``auto`` may reach on a GPU (the most walkers one worker gets per iteration).
    copies : mapping, optional
        ``cutoff_nm`` (default :func:`copy_cutoff` of the basis structure) and ``guard_nm`` (1.0) of the
        copy scheme.
    """

    def __init__(
        self,
        system_xml: str | Path,
        state_xml: str | Path,
        topology_pdb: str | Path,
        integrator: Mapping | None = None,
        platform: Mapping | None = None,
        threads: int | None = None,
        batch_walkers=default("we.batch_walkers"),
        max_walkers: int = 256,
        copies: Mapping | None = None,
    ):
        self.system = openmm.XmlSerializer.deserialize(Path(system_xml).read_text())
        self.state = openmm.XmlSerializer.deserialize(Path(state_xml).read_text())
        self.ca = np.array(ca_atom_indices(app.PDBFile(str(topology_pdb)).topology))
        self.settings = dict(integrator or {})
        self.platform, self.threads = dict(platform or {}), threads
        requested = {**section_defaults("platform"), **self.platform}["name"]
        if is_gpu_platform(requested) and "device_index" not in self.platform:
            device = worker_device()  # one WE worker per GPU present; None: no GPU seen, OpenMM picks
            if device is not None:
                self.platform["device_index"] = device
        self.periodic = self.system.usesPeriodicBoundaryConditions()
        self.batch_setting, self.max_walkers = batch_walkers, int(max_walkers)
        copies = dict(copies or {})
        self.guard = float(copies.get("guard_nm", 1.0))
        self.cutoff = float(copies.get("cutoff_nm") or copy_cutoff(self.basis_state().positions, self.guard))
        self.remove_cm = any(isinstance(f, openmm.CMMotionRemover) for f in self.system.getForces())
        self.masses = np.array(
            [self.system.getParticleMass(i).value_in_unit(unit.dalton) for i in range(self.system.getNumParticles())]
        )
        self._context = None
        self._copies: dict[int, tuple] = {}
        self._batch = None

    @property
    def context(self) -> openmm.Context:
        """The single-molecule context, created on the first segment, in the worker process that runs it.

        WESTPA's master also builds the engine (for basis-state progress coordinates); an OpenMM
        context made there would be inherited by forked workers, whose copies of its thread
        pools deadlock (seen with the CPU platform's PME).
        """
        if self._context is None:
            self.integrator = make_integrator(self.settings)
            self._context, self.platform_name = create_context(
                self.system, self.integrator, self.platform, self.threads
            )
            self.temperature = self.integrator.getTemperature()
            log.info("OpenMM context ready: %d atoms on %s", self.system.getNumParticles(), self.platform_name)
        return self._context

    def runtime(self) -> dict:
        """What the contexts made so far run on: the platform asked for, and per context the platform
        it got with its properties (``DeviceIndex``, ``DeviceName``, ``Precision`` on CUDA)."""
        contexts = {"single": self._context} if self._context is not None else {}
        contexts.update({f"copies_{size}": entry[0] for size, entry in self._copies.items() if entry is not None})
        records = {name: context_record(context) for name, context in contexts.items()}
        requested = {**section_defaults("platform"), **self.platform}
        used = sorted({r["platform"] for r in records.values()})
        return {
            **super().runtime(),
            "requested_platform": requested["name"],
            "device_index_requested": requested.get("device_index"),
            "platforms": used,
            "fell_back": any(name != requested["name"] for name in used),
            "contexts": records,
            "batch_walkers": self._batch,
        }

    @property
    def batch_walkers(self) -> int:
        """Walkers per batch on the platform this worker got (see the module docstring)."""
        if self._batch is None:
            _ = self.context
            self._batch = resolve_batch_walkers(self.batch_setting, self.platform_name, self.max_walkers)
            if self._batch > 1 and not self.periodic:
                try:
                    self._copy_context(self._batch)
                except copy_scheme.CopyError as error:
                    log.warning("walkers run one at a time: %s", error)
                    self._copies[self._batch] = None
            log.info(
                "batches of %d walkers (%s) on %s",
                self._batch,
                "copies in one context" if self._copies.get(self._batch) else "one context, in turn",
                self.platform_name,
            )
        return self._batch

    def basis_state(self) -> WalkerState:
        box = self.state.getPeriodicBoxVectors(asNumpy=True)
        return WalkerState(
            self.state.getPositions(asNumpy=True).value_in_unit(unit.nanometer),
            None,
            box.value_in_unit(unit.nanometer) if self.system.usesPeriodicBoundaryConditions() else None,
        )

    def beads(self, state: WalkerState) -> np.ndarray:
        return np.asarray(state.positions)[self.ca]

    # -- batches ---------------------------------------------------------------------------------

    def propagate(
        self,
        starts: Sequence[WalkerState],
        n_steps: int,
        save_every: int,
        seeds: Sequence[int],
        batch: tuple[int, Sequence[int]] | None = None,
    ) -> list[SegmentResult]:
        """Advance every start by ``n_steps``.

        ``batch = (batch_seed, slots)`` says that the starts form one batch (slots < ``batch_walkers``);
        without it, consecutive groups of ``batch_walkers`` starts form the batches, seeded by their
        first walker's seed.
        """
        size = self.batch_walkers
        if batch is None:
            results = []
            for first in range(0, len(starts), size):
                chunk = slice(first, first + size)
                results += self.propagate(
                    starts[chunk], n_steps, save_every, seeds[chunk], (seeds[first], range(len(starts[chunk])))
                )
            return results
        batch_seed, slots = batch
        if self._copies.get(size) is not None:
            return self._run_copies(list(starts), list(seeds), list(slots), int(batch_seed), n_steps, save_every)
        return self._run_in_turn(list(starts), list(seeds), int(batch_seed), n_steps, save_every)

    def _run_in_turn(self, starts, seeds, batch_seed, n_steps, save_every) -> list[SegmentResult]:
        """One context, one reseed, the walkers one after another."""
        self._reseed(self.context, self.integrator, batch_seed)
        return [self._run_one(start, seed, n_steps, save_every) for start, seed in zip(starts, seeds)]

    @staticmethod
    def _reseed(context, integrator, seed: int) -> None:
        # OpenMM reads an integrator's seed only when the context is (re)initialized.
        integrator.setRandomNumberSeed(int(seed))
        context.reinitialize()

    def _run_one(self, start: WalkerState, seed: int, n_steps: int, save_every: int) -> SegmentResult:
        context = self.context
        if start.box is not None:
            context.setPeriodicBoxVectors(*start.box)
        context.setPositions(start.positions)
        if start.velocities is None:
            context.setVelocitiesToTemperature(self.temperature, int(seed))
        else:
            context.setVelocities(start.velocities)
        frames = []
        try:
            for _ in range(n_steps // save_every):
                self.integrator.step(save_every)
                positions = context.getState(getPositions=True).getPositions(asNumpy=True)
                frames.append(positions.value_in_unit(unit.nanometer)[self.ca])
        except openmm.OpenMMException as error:  # e.g. NaN coordinates found by the neighbour list
            last = frames[-1] if frames else self.beads(start)
            frames += [last] * (n_steps // save_every - len(frames))
            return SegmentResult(np.asarray(frames, dtype=np.float32), start, "exploded", str(error).splitlines()[0])
        final = context.getState(getPositions=True, getVelocities=True)
        box = final.getPeriodicBoxVectors(asNumpy=True)
        state = WalkerState(
            final.getPositions(asNumpy=True).value_in_unit(unit.nanometer),
            final.getVelocities(asNumpy=True).value_in_unit(unit.nanometer / unit.picosecond),
            box.value_in_unit(unit.nanometer) if start.box is not None else None,
        )
        frames = np.asarray(frames, dtype=np.float32)
        status = "ok" if np.isfinite(frames).all() else "exploded"
        return SegmentResult(frames, state, status, "" if status == "ok" else "non-finite positions")

    # -- copies ----------------------------------------------------------------------------------

    def _copy_context(self, size: int):
        if self._copies.get(size) is None:
            system = copy_scheme.copy_system(self.system, size, self.cutoff)
            integrator = make_integrator(self.settings)
            context, name = create_context(system, integrator, self.platform, self.threads)
            self._copies[size] = (context, integrator, copy_scheme.slot_centers(size, self.cutoff))
            log.info(
                "copy context ready: %d copies of %d atoms, cutoff %.1f nm, on %s",
                size,
                self.system.getNumParticles(),
                self.cutoff,
                name,
            )
        return self._copies[size]

    def _velocities(self, seed: int) -> np.ndarray:
        """Maxwell-Boltzmann velocities (nm/ps) of one walker, no centre-of-mass motion."""
        kt = BOLTZMANN_KJ_MOL_K * self.integrator.getTemperature().value_in_unit(unit.kelvin)
        sigma = np.sqrt(kt / np.where(self.masses > 0, self.masses, np.inf))
        velocities = np.random.default_rng(int(seed)).normal(size=(len(self.masses), 3)) * sigma[:, None]
        return self._without_cm(velocities)

    def _without_cm(self, velocities: np.ndarray) -> np.ndarray:
        momentum = (self.masses[:, None] * velocities).sum(0) / self.masses.sum()
        return np.where(self.masses[:, None] > 0, velocities - momentum, 0.0)

    def _run_copies(self, starts, seeds, slots, batch_seed, n_steps, save_every) -> list[SegmentResult]:
        alone = [i for i, s in enumerate(starts) if not copy_scheme.fits(s.positions, self.cutoff, self.guard)]
        members = [i for i in range(len(starts)) if i not in alone]
        results: dict[int, SegmentResult] = {}
        if members:
            self._copy_pass(members, starts, seeds, slots, batch_seed, n_steps, save_every, results, alone)
        for i in sorted(alone):
            self._reseed(self.context, self.integrator, seeds[i])
            results[i] = self._run_one(starts[i], seeds[i], n_steps, save_every)
        return [results[i] for i in range(len(starts))]

    def _copy_pass(self, members, starts, seeds, slots, batch_seed, n_steps, save_every, results, alone) -> None:
        """Run ``members`` as copies (same batch seed, same slots); fill ``results``, add rule breakers to ``alone``.

        When OpenMM raises (a walker's coordinates turned NaN), the batch is split in halves that run again
        as copies, down to the walker that fails, which runs alone: one bad walker costs about 2 log2(B)
        copy passes instead of B walkers run one after another. A walker keeps its slot, so its noise
        (batch seed and slot) is unchanged; its trajectory equals the one in the batch without the failed
        walker up to the constraint solver's tolerance (the solver iterates over the whole context), and
        the split is the same in every run, so runs still repeat exactly.
        """
        size, n_frames, n_atoms = self.batch_walkers, n_steps // save_every, len(self.masses)
        context, integrator, centers = self._copy_context(size)
        self._reseed(context, integrator, batch_seed)
        basis = self.basis_state().positions
        positions = np.concatenate([basis - basis.mean(0) + c for c in centers])
        velocities = np.zeros_like(positions)
        offsets = np.zeros((size, 3))
        for i in members:
            slot, start = slots[i], np.asarray(starts[i].positions)
            offsets[slot] = centers[slot] - start.mean(0)
            rows = slice(slot * n_atoms, (slot + 1) * n_atoms)
            positions[rows] = start + offsets[slot]
            given = starts[i].velocities
            velocities[rows] = self._velocities(seeds[i]) if given is None else given
        context.setPositions(positions)
        context.setVelocities(velocities)
        if any(starts[i].velocities is None for i in members):
            context.applyVelocityConstraints(self.integrator.getConstraintTolerance())
        occupied = np.array(sorted(slots[i] for i in members))
        frames = np.empty((n_frames, size, len(self.ca), 3), dtype=np.float32)
        broken = np.zeros(size, dtype=bool)
        try:
            for f in range(n_frames):
                integrator.step(save_every)
                now = context.getState(getPositions=True).getPositions(asNumpy=True)._value.reshape(size, n_atoms, 3)
                frames[f] = now[:, self.ca] - offsets[:, None]
                broken |= copy_scheme.violations(now, self.cutoff)
            final = context.getState(getPositions=True, getVelocities=True)
            end_x = final.getPositions(asNumpy=True)._value.reshape(size, n_atoms, 3)
            end_v = final.getVelocities(asNumpy=True)._value.reshape(size, n_atoms, 3)
        except openmm.OpenMMException as error:
            if len(members) == 1:
                alone.extend(members)
                return
            half = len(members) // 2
            log.warning(
                "copy batch of %d walkers failed (%s): rerun as two batches of %d and %d",
                len(members),
                str(error).splitlines()[0],
                half,
                len(members) - half,
            )
            for part in (members[:half], members[half:]):
                self._copy_pass(part, starts, seeds, slots, batch_seed, n_steps, save_every, results, alone)
            return
        for i in members:
            slot = slots[i]
            if broken[slot]:
                alone.append(i)
                continue
            v = self._without_cm(end_v[slot]) if self.remove_cm else end_v[slot]
            results[i] = SegmentResult(frames[:, slot].copy(), WalkerState(end_x[slot] - offsets[slot], v))
        if broken[occupied].any():
            log.info(
                "%d walker(s) left the copy scheme's bounds (cutoff %.1f nm): rerun alone",
                int(broken[occupied].sum()),
                self.cutoff,
            )
