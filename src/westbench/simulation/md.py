"""One OpenMM run with checkpoints: minimize, equilibrate, produce; resumable after a kill.

The run works in a folder of its own. Production advances in chunks of
``checkpoint_every`` steps, each with freshly seeded random streams; after each chunk its frames are written to
``chunk_NNNNNN.npz`` and then an OpenMM checkpoint is saved, both atomically.
A rerun loads the last checkpoint and continues with the next chunk, so the
finished trajectory has no duplicated or missing frame whatever moment the
process was killed at. :func:`collect_frames` joins the chunks in order.

Examples
--------
>>> settings = MDSettings.from_config({"timestep_fs": 4.0}, equilibration_ps=0.4, length_ps=2.0,
...                                   save_interval_ps=0.2, checkpoint_interval_ps=1.0)
>>> settings.production_steps, settings.save_every, settings.checkpoint_every, settings.n_frames
(500, 50, 250, 10)
"""

from __future__ import annotations

import logging
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import openmm
from openmm import unit

from westbench.io import atomic
from westbench.runtime.resume import reset_if_settings_changed
from westbench.seeds import derive_seed
from westbench.simulation.integration import DEFAULTS, make_integrator
from westbench.simulation.platforms import create_context

log = logging.getLogger(__name__)

KJ_MOL = unit.kilojoule_per_mole
FORCE_UNIT = unit.kilojoule_per_mole / unit.nanometer


@dataclass(frozen=True)
class MDSettings:
    """Step counts and thermostat settings of one run (all derived from picoseconds in the config)."""

    timestep_fs: float
    temperature_k: float
    friction_per_ps: float
    constraint_tolerance: float
    equilibration_steps: int
    production_steps: int
    save_every: int
    checkpoint_every: int
    minimize_max_iterations: int
    minimize_tolerance_kj_mol_nm: float

    @classmethod
    def from_config(
        cls,
        preparation: Mapping,
        equilibration_ps: float,
        length_ps: float,
        save_interval_ps: float,
        checkpoint_interval_ps: float,
        minimize_max_iterations: int | None = None,
    ) -> "MDSettings":
        """Convert picoseconds to steps; the checkpoint interval is rounded to whole save intervals."""
        p = {**DEFAULTS, **preparation}
        steps_per_ps = 1000.0 / p["timestep_fs"]
        save_every = max(1, round(save_interval_ps * steps_per_ps))
        checkpoint_every = save_every * max(1, round(checkpoint_interval_ps * steps_per_ps / save_every))
        production = save_every * max(1, round(length_ps * steps_per_ps / save_every))
        return cls(
            timestep_fs=p["timestep_fs"],
            temperature_k=p["temperature_k"],
            friction_per_ps=p["friction_per_ps"],
            constraint_tolerance=p["constraint_tolerance"],
            equilibration_steps=round(equilibration_ps * steps_per_ps),
            production_steps=production,
            save_every=save_every,
            checkpoint_every=checkpoint_every,
            minimize_max_iterations=p["minimize_max_iterations"]
            if minimize_max_iterations is None
            else minimize_max_iterations,
            minimize_tolerance_kj_mol_nm=p["minimize_tolerance_kj_mol_nm"],
        )

    @property
    def n_frames(self) -> int:
        return self.production_steps // self.save_every

    @property
    def n_chunks(self) -> int:
        return -(-self.production_steps // self.checkpoint_every)


def _survives(path: Path) -> str:
    return f"the previous checkpoint and every frame chunk before it are intact in {path.parent}"


def _atomic_write(path: Path, data: bytes) -> None:
    """Write ``path`` atomically (:mod:`westbench.io.atomic`): a failed write never touches the old file."""
    atomic.write_bytes(path, data, _survives(path))


def _atomic_savez(path: Path, **arrays) -> None:
    atomic.savez(path, _survives(path), **arrays)


def _load_checkpoint(context: openmm.Context, path: Path) -> None:
    try:
        context.loadCheckpoint(path.read_bytes())
    except Exception as exc:
        from westbench.errors import WestbenchError

        raise WestbenchError(
            f"checkpoint {path} cannot be loaded ({exc}). It was written by another platform or is "
            f"corrupted: delete {path} (and the chunk files after the last good one) to restart that phase."
        ) from exc


class MDRun:
    """A resumable OpenMM run in ``workdir``.

    Parameters
    ----------
    system : openmm.System
    positions : array or Quantity
        Starting positions (the solvated start).
    workdir : path
        Folder for checkpoints and frame chunks; kept across reruns.
    settings : MDSettings
    ca_atoms : sequence of int
        Atoms whose positions are saved as C-alpha frames.
    force_groups : sequence of sequence of int
        Per bead, the atoms whose forces are summed into the saved force
        (``[[ca]]`` per residue maps to the C-alpha force alone).
    solute_atoms : sequence of int
        Atoms written to the trajectory.
    platform : mapping
        The ``platform`` config section.
    threads : int, optional
        CPU threads.
    seed : int
        Seeds the velocities and the Langevin integrator.
    """

    def __init__(
        self,
        system,
        positions,
        workdir,
        settings: MDSettings,
        ca_atoms: Sequence[int],
        force_groups: Sequence[Sequence[int]],
        solute_atoms: Sequence[int],
        platform: Mapping,
        threads: int | None = None,
        seed: int = 1,
    ):
        self.system, self.positions, self.settings = system, positions, settings
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.ca_atoms = np.asarray(ca_atoms)
        self.force_groups = [np.asarray(g) for g in force_groups]
        self.solute_atoms = np.asarray(solute_atoms)
        self.seed = seed
        reset_if_settings_changed(
            self.workdir, {**asdict(settings), "seed": seed, "atoms": system.getNumParticles()}, what="MD run"
        )
        integrator = make_integrator(asdict(settings), seed)
        self.context, self.platform_name = create_context(system, integrator, platform, threads)
        self.integrator = integrator

    # -- phases ---------------------------------------------------------------------------
    @property
    def equilibrated_checkpoint(self) -> Path:
        return self.workdir / "equilibrated.chk"

    @property
    def production_checkpoint(self) -> Path:
        return self.workdir / "production.chk"

    def chunk_path(self, index: int) -> Path:
        return self.workdir / f"chunk_{index:06d}.npz"

    def prepare(self) -> dict:
        """Minimize and equilibrate, unless a previous invocation already did."""
        if self.equilibrated_checkpoint.exists():
            log.info("equilibration found in %s: skipping minimization and equilibration", self.equilibrated_checkpoint)
            return {}
        s = self.settings
        self.context.setPositions(self.positions)
        start = time.perf_counter()
        openmm.LocalEnergyMinimizer.minimize(
            self.context, s.minimize_tolerance_kj_mol_nm * FORCE_UNIT, s.minimize_max_iterations
        )
        minimized = self.context.getState(getEnergy=True).getPotentialEnergy().value_in_unit(KJ_MOL)
        log.info(
            "minimized to %.1f kJ/mol in %.1f s (cap %s iterations)",
            minimized,
            time.perf_counter() - start,
            s.minimize_max_iterations or "none",
        )
        self.context.setVelocitiesToTemperature(s.temperature_k * unit.kelvin, self.seed)
        self._advance(s.equilibration_steps, "equilibration")
        self.context.setStepCount(0)
        self.context.setTime(0.0)
        _atomic_write(self.equilibrated_checkpoint, self.context.createCheckpoint())
        return {"minimized_energy_kj_mol": minimized}

    def _advance(self, steps: int, phase: str, report_every: int | None = None) -> None:
        report_every = report_every or max(1, steps // 5)
        done, start = 0, time.perf_counter()
        while done < steps:
            block = min(report_every, steps - done)
            self.integrator.step(block)
            done += block
            elapsed = time.perf_counter() - start
            log.info(
                "%s: %d/%d steps, %.1f ns/day, ETA %.0f s",
                phase,
                done,
                steps,
                self._ns_per_day(done, elapsed),
                elapsed / done * (steps - done),
            )

    def _ns_per_day(self, steps: int, seconds: float) -> float:
        return throughput_ns_per_day(steps, self.settings.timestep_fs, seconds)

    def _frame(self) -> dict:
        state = self.context.getState(getPositions=True, getForces=True, getEnergy=True, enforcePeriodicBox=False)
        positions = state.getPositions(asNumpy=True).value_in_unit(unit.nanometer)
        forces = state.getForces(asNumpy=True).value_in_unit(FORCE_UNIT)
        box = state.getPeriodicBoxVectors(asNumpy=True)
        return {
            "solute": positions[self.solute_atoms].astype(np.float32),
            "ca": positions[self.ca_atoms].astype(np.float32),
            "forces": np.stack([forces[g].sum(axis=0) for g in self.force_groups]).astype(np.float32),
            "energy": state.getPotentialEnergy().value_in_unit(KJ_MOL),
            "time_ps": state.getTime().value_in_unit(unit.picosecond),
            "box": (box.value_in_unit(unit.nanometer) if box is not None else np.zeros((3, 3))).astype(np.float32),
        }

    def produce(self) -> dict:
        """Run (or finish) production chunk by chunk; returns throughput of this invocation."""
        s = self.settings
        if self.production_checkpoint.exists():
            _load_checkpoint(self.context, self.production_checkpoint)
            resumed_from = self.context.getStepCount()
            log.info(
                "resuming production from step %d of %d (checkpoint %s)",
                resumed_from,
                s.production_steps,
                self.production_checkpoint,
            )
        else:
            _load_checkpoint(self.context, self.equilibrated_checkpoint)
            resumed_from = 0
        first_chunk = resumed_from // s.checkpoint_every
        start = time.perf_counter()
        for chunk in range(first_chunk, s.n_chunks):
            chunk_start = time.perf_counter()
            self._reseed(chunk)
            steps = min(s.checkpoint_every, s.production_steps - chunk * s.checkpoint_every)
            frames = []
            for _ in range(steps // s.save_every):
                self.integrator.step(s.save_every)
                frames.append(self._frame())
            stacked = {key: np.stack([f[key] for f in frames]) for key in frames[0]}
            stacked["wall_seconds"] = np.array(time.perf_counter() - chunk_start)
            stacked["steps"] = np.array(steps)
            _atomic_savez(self.chunk_path(chunk), **stacked)
            _atomic_write(self.production_checkpoint, self.context.createCheckpoint())
            done = (
                (chunk + 1) * s.checkpoint_every - resumed_from
                if chunk + 1 < s.n_chunks
                else s.production_steps - resumed_from
            )
            elapsed = time.perf_counter() - start
            remaining = s.production_steps - resumed_from - done
            log.info(
                "production: chunk %d/%d, step %d/%d, %.1f ns/day, ETA %.0f s",
                chunk + 1,
                s.n_chunks,
                self.context.getStepCount(),
                s.production_steps,
                self._ns_per_day(done, elapsed),
                elapsed / max(done, 1) * remaining,
            )
        return {"resumed_from_step": resumed_from, "platform": self.platform_name}

    def _reseed(self, chunk: int) -> None:
        """Seed the thermostat and barostat of a chunk from (seed, chunk).

        A checkpoint restores positions, velocities and box but not the barostat's
        random stream, so every chunk starts from freshly seeded generators: a run
        resumed at any chunk then repeats the uninterrupted run bit for bit.
        """
        self.integrator.setRandomNumberSeed(derive_seed(self.seed, "chunk", chunk))
        for force in self.system.getForces():
            if isinstance(force, openmm.MonteCarloBarostat):
                force.setRandomNumberSeed(derive_seed(self.seed, "barostat", chunk))
        self.context.reinitialize(preserveState=True)

    def final_state(self) -> openmm.State:
        """The state at the last saved frame (positions, velocities, box, forces, energy)."""
        return self.context.getState(
            getPositions=True,
            getVelocities=True,
            getForces=True,
            getEnergy=True,
            getParameters=True,
            enforcePeriodicBox=False,
        )


def collect_frames(workdir: str | Path, settings: MDSettings) -> dict:
    """Join the chunk files of a finished production in order, checking none is missing."""
    workdir = Path(workdir)
    parts = []
    for chunk in range(settings.n_chunks):
        path = workdir / f"chunk_{chunk:06d}.npz"
        if not path.exists():
            raise FileNotFoundError(f"{path} is missing: production is incomplete; rerun to finish it")
        with np.load(path) as data:
            parts.append({key: data[key] for key in data.files})
    joined = {
        key: np.concatenate([p[key] for p in parts]) for key in ("solute", "ca", "forces", "energy", "time_ps", "box")
    }
    joined["wall_seconds"] = float(sum(float(p["wall_seconds"]) for p in parts))
    joined["steps"] = int(sum(int(p["steps"]) for p in parts))
    if len(joined["ca"]) != settings.n_frames:
        raise RuntimeError(f"{workdir}: {len(joined['ca'])} frames collected, {settings.n_frames} expected")
    return joined


def throughput_ns_per_day(steps: int, timestep_fs: float, wall_seconds: float) -> float:
    """Simulated nanoseconds per day of wall-clock time."""
    return steps * timestep_fs * 1e-6 / max(wall_seconds, 1e-9) * 86400
