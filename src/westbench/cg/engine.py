"""The CG engine for weighted ensemble: batched Langevin dynamics of C-alpha beads under a CG model.

Every segment of an iteration is integrated together, one batch (WESTPA hands the whole
iteration to one call: ``block_size`` in west.cfg). Integrator: BAOAB Langevin (as OpenMM's
LangevinMiddleIntegrator) at ``temperature_k``, ``friction_per_ps``, ``timestep_fs``; bead masses
are the residue masses of the basis structure unless ``bead_mass_amu`` is set. Each walker's noise
is drawn on the device from a counter-based generator keyed by its segment seed
(:mod:`westbench.cg.noise`), so a walker's trajectory does not depend on the other walkers of the
batch, and no Python code loops over walkers inside the step loop.

The force call runs on CUDA as a CUDA graph captured per batch-size bucket
(:func:`westbench.cg.capture.bucket`: powers of two up to 64 walkers, then multiples of 64; the batch
is padded with copies of its first walker, whose forces are dropped), eagerly on the CPU or when
``cuda_graphs`` is false (:class:`westbench.cg.capture.BucketedForces`). A capture that fails is an
error (:class:`westbench.cg.capture.CaptureError`) unless ``cuda_graphs`` is ``"auto"``: then the
engine logs the whole message and goes on eagerly, and :meth:`CGEngine.runtime` (the WE run's
``run.json``) records it with the buckets captured.

Devices: ``device: cuda`` in a numbered WESTPA worker means that worker's GPU
(:func:`westbench.runtime.devices.worker_device`); the engine makes it the current device
(``torch.cuda.set_device``) before anything touches CUDA, and captures on a stream of that device.
A GPU that is not there is an error (:class:`westbench.runtime.devices.DeviceError`), never a quiet
CPU run. With ``deterministic`` (on CUDA) the worker calls ``torch.use_deterministic_algorithms(True)``
with ``CUBLAS_WORKSPACE_CONFIG=:4096:8``; see docs/engines.md for what that does and does not make
repeatable.

A walker ends when a step gives non-finite forces or positions ("exploded"), a bond longer than
``bond_max_angstrom`` ("exploded") or shorter than ``bond_min_angstrom`` ("imploded"), checked on the
device at every saved frame, without a host synchronisation (the reasons are read once, at the
segment's end; the message names the frame's last step). Such a walker is logged, it is put back to
its state at the previous frame, its remaining frames repeat its last valid frame, its status and
message are returned, and its final state is its start (a continuing walker restarts from there with
a new seed). The other walkers go on.

Examples
--------
>>> import numpy as np, tempfile, os, torch
>>> from westbench.cg.model import CGModel, save_model
>>> from westbench.cg.prior import fit_prior
>>> chain = np.zeros((1, 5, 3), np.float32); chain[0, :, 0] = 0.38 * np.arange(5)
>>> model = CGModel({"p": "GYDPE"}, network=None, prior={"terms": ["bonds"]})
>>> prior = fit_prior(chain + np.random.default_rng(0).normal(0, 0.01, (200, 5, 3)), terms=["bonds"])
>>> model.set_prior("p", prior)
>>> path = os.path.join(tempfile.mkdtemp(), "m.pt"); save_model(model, path)
>>> engine = CGEngine(path, "p", basis_positions=chain[0], bead_mass_amu=100.0)
>>> results = engine.propagate([engine.basis_state()] * 2, n_steps=20, save_every=10, seeds=[1, 2])
>>> [r.status for r in results], results[0].frames.shape
(['ok', 'ok'], (2, 5, 3))
"""

from __future__ import annotations

import logging
import math
import os
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import torch

from westbench.cg.capture import BucketedForces
from westbench.cg.internal_coordinates import bonds
from westbench.cg.model import load_energy_model
from westbench.cg.noise import gaussian
from westbench.cg.torch_device import worker_torch_device
from westbench.config import section_defaults
from westbench.constants import BOLTZMANN_KJ_MOL_K
from westbench.engines.base import Engine, SegmentResult, WalkerState
from westbench.errors import WestbenchError
from westbench.runtime.console import declare_chatty

log = logging.getLogger(__name__)
declare_chatty(__name__)  # set-up lines: the job's log file only

_CGML = section_defaults("cg")  # the schema owns the defaults of the engine's settings


def basis_from_pdb(pdb_path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """C-alpha positions (n, 3) nm and residue masses (n,) amu of a structure."""
    from openmm import app, unit

    from westbench.geometry.features import ca_atom_indices

    pdb = app.PDBFile(str(pdb_path))
    atoms = list(pdb.topology.atoms())
    ca = ca_atom_indices(pdb.topology)
    positions = pdb.getPositions(asNumpy=True).value_in_unit(unit.nanometer)[ca]
    masses = [sum(a.element.mass.value_in_unit(unit.dalton) for a in atoms[i].residue.atoms() if a.element) for i in ca]
    return np.asarray(positions, dtype=np.float64), np.asarray(masses, dtype=np.float64)


def load_basis_states(path: str | Path, n_beads: int) -> list[np.ndarray]:
    """The basis states of a ``basis_states`` file: ``positions`` (n_states, n_beads, 3) nm, finite."""
    return list(_read_basis_states(path, n_beads)[0])


def load_basis_state_weights(path: str | Path, n_beads: int) -> np.ndarray | None:
    """The probabilities of a ``basis_states`` file's states: its ``weight`` (n_states,), finite, non-negative and
    summing to 1 within 1e-6 (renormalized), or None where it has none (equally likely)."""
    return _read_basis_states(path, n_beads)[1]


def _read_basis_states(path, n_beads):
    try:
        with np.load(path) as data:
            positions = np.asarray(data["positions"], dtype=np.float64)
            weights = np.asarray(data["weight"], dtype=np.float64) if "weight" in data.files else None
    except (OSError, KeyError, ValueError) as error:
        raise WestbenchError(
            f"{path}: not a basis-states file with positions (n_states, n_beads, 3): {error}"
        ) from error
    if positions.ndim != 3 or positions.shape[1:] != (n_beads, 3) or not len(positions):
        raise WestbenchError(
            f"{path}: positions have shape {positions.shape}; the basis structure has {n_beads} beads, so "
            f"(n_states, {n_beads}, 3) is needed"
        )
    if not np.isfinite(positions).all():
        raise WestbenchError(f"{path}: non-finite positions; redraw the basis states")
    if weights is not None:
        if (
            weights.shape != (len(positions),)
            or not np.isfinite(weights).all()
            or (weights < 0).any()
            or abs(weights.sum() - 1.0) > 1e-6
        ):
            raise WestbenchError(
                f"{path}: weight must hold one probability per state ({len(positions)}), non-negative, summing to 1"
            )
        weights = weights / weights.sum()
    return positions, weights


class CGEngine(Engine):
    """Langevin dynamics of C-alpha beads under a CG energy model (see the module docstring).

    Parameters
    ----------
    model : path
        A model file accepted by :func:`westbench.cg.model.load_energy_model`.
    protein : str
        Protein id (selects the prior of a multi-protein model).
    basis_pdb : path, optional
        Structure whose C-alpha atoms are the basis state (and give residue masses).
    basis_positions : array (n, 3), optional
        The basis state directly (nm), instead of ``basis_pdb``.
    langevin : mapping, optional
        ``temperature_k`` (300), ``friction_per_ps`` (1), ``timestep_fs`` (4), ``bead_mass_amu`` (null =
        residue masses; 110 without a structure).
    explosion : mapping, optional
        ``bond_min_angstrom`` (2.5), ``bond_max_angstrom`` (6.0).
    device : {"auto", "cpu", "cuda"}
        ``cuda`` in a numbered WESTPA worker means that worker's GPU (:func:`westbench.runtime.devices.worker_device`).
    threads : int, optional
        torch CPU threads.
    cuda_graphs : {True, False, "auto"}
        ``cg.cuda_graphs``: capture the force call in CUDA graphs on CUDA (a failed capture raises
        :class:`~westbench.cg.capture.CaptureError`); False: eager; ``"auto"``: capture, and run eagerly
        (logged, recorded) where capture fails. Always eager on the CPU.
    deterministic : bool
        ``cg.deterministic``: on CUDA, ``torch.use_deterministic_algorithms(True)`` in this worker.
    capture : bool, optional
        Former name of ``cuda_graphs`` (False = ``cuda_graphs: false``).
    model_spec : mapping, optional
        A user's model (``cg.models.<name>``, :func:`westbench.cg.user.load_user_model`): its entry
        (format, class, units, what it returns) and ``prior_path``; ``model`` is then its file.
    basis_states : path, optional
        An ``.npz`` whose ``positions`` (n_states, n_beads, 3) nm are the WE run's basis states, equally likely or
        with the probabilities of its ``weight`` (e.g. frames drawn from an equilibrium ground truth,
        :func:`westbench.calibration.basis.draw_basis_states`, weighted by
        :func:`~westbench.calibration.basis.engine_starts`); without it the basis structure alone.
    """

    def __init__(
        self,
        model: str | Path,
        protein: str,
        basis_pdb: str | Path | None = None,
        basis_positions=None,
        langevin: Mapping | None = None,
        explosion: Mapping | None = None,
        device: str = _CGML["device"],
        threads: int | None = None,
        bead_mass_amu: float | None = None,
        cuda_graphs=_CGML["cuda_graphs"],
        deterministic: bool = _CGML["deterministic"],
        capture: bool | None = None,
        model_spec: Mapping | None = None,
        basis_states: str | Path | None = None,
    ):
        langevin = {**section_defaults("cg.langevin"), "bead_mass_amu": bead_mass_amu, **dict(langevin or {})}
        explosion = {**section_defaults("cg.explosion"), **dict(explosion or {})}
        if threads:
            torch.set_num_threads(int(threads))
        self.device_setting, self._device, self._model, self._masses = device, None, None, None
        self.model_path, self.protein = str(model), protein
        self.model_spec = dict(model_spec) if model_spec else None
        if capture is not None:
            cuda_graphs = bool(capture) and cuda_graphs
        if cuda_graphs not in (True, False, "auto"):
            raise WestbenchError(f"cg.cuda_graphs must be true, false or auto, not {cuda_graphs!r}")
        self.cuda_graphs, self.deterministic, self._batch_forces = cuda_graphs, bool(deterministic), None
        if basis_pdb is not None:
            self.basis, masses = basis_from_pdb(basis_pdb)
        elif basis_positions is not None:
            self.basis = np.asarray(basis_positions, dtype=np.float64)
            masses = np.full(len(self.basis), 110.0)
        else:
            raise ValueError("CGEngine needs basis_pdb or basis_positions")
        self.starts, self.start_weights = [self.basis], None
        if basis_states is not None:  # one read of the file: its states and their probabilities
            positions, self.start_weights = _read_basis_states(basis_states, len(self.basis))
            self.starts = list(positions)
        if langevin["bead_mass_amu"] is not None:
            masses = np.full(len(self.basis), float(langevin["bead_mass_amu"]))
        self.bead_masses = masses
        self.kt = BOLTZMANN_KJ_MOL_K * float(langevin["temperature_k"])
        self.dt = float(langevin["timestep_fs"]) / 1000.0
        self.friction = float(langevin["friction_per_ps"])
        self.bounds = (float(explosion["bond_min_angstrom"]) / 10.0, float(explosion["bond_max_angstrom"]) / 10.0)
        self.settings = {
            "langevin": langevin,
            "explosion": explosion,
            "device": str(device),
            "cuda_graphs": cuda_graphs,
            "deterministic": self.deterministic,
        }
        log.info(
            "CG engine: model %s for %s, %d beads, device %s, dt %.1f fs, bonds allowed %.2f-%.2f nm",
            model,
            protein,
            len(self.basis),
            device,
            1000 * self.dt,
            *self.bounds,
        )

    # The model goes to the device on first use, in the worker that runs segments: WESTPA's master
    # also builds the engine (basis-state pcoords) and forks its workers, and CUDA cannot be used in
    # a process forked after it was initialized.
    @property
    def capture(self) -> bool:
        """Whether the force call is captured in CUDA graphs (on CUDA, ``cuda_graphs`` true or auto)."""
        return self.cuda_graphs in (True, "auto") and self.device.type == "cuda"

    @property
    def device(self) -> torch.device:
        if self._device is None:
            self._device = self._choose_device()
        return self._device

    def _choose_device(self) -> torch.device:
        """The torch device of this worker; CUDA set up for it (current device, determinism) before first use."""
        device = worker_torch_device(self.device_setting)  # this worker's GPU, checked (westbench.runtime.devices)
        if device.type != "cuda":
            return device
        if self.deterministic:
            # cuBLAS reads its workspace setting when its handle is made: before the first matmul.
            os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.use_deterministic_algorithms(self.deterministic)  # process-wide: one engine per WE worker
        torch.cuda.set_device(device)  # capture streams and graphs belong to the current device
        log.info(
            "CG engine on %s (%s)%s",
            device,
            torch.cuda.get_device_name(device),
            ", deterministic algorithms" if self.deterministic else "",
        )
        return device

    @property
    def model(self):
        if self._model is None:
            if self.model_spec:  # a user's model (cg.models): its own format and units
                from westbench.cg.user import load_user_model

                spec = {**self.model_spec, "path": self.model_path}
                self._model = load_user_model(
                    spec, self.protein, device=self.device, prior_path=self.model_spec.get("prior_path")
                )
            else:
                self._model = load_energy_model(self.model_path, protein=self.protein, device=self.device)
            for parameter in self._model.parameters():
                parameter.requires_grad_(False)  # forces need the gradient with respect to positions only
        return self._model

    @property
    def dtype(self) -> torch.dtype:
        return next(
            (t.dtype for t in [*self.model.parameters(), *self.model.buffers()] if t.is_floating_point()), torch.float32
        )

    @property
    def masses(self) -> torch.Tensor:
        if self._masses is None:
            self._masses = torch.as_tensor(self.bead_masses, dtype=self.dtype, device=self.device)[:, None]
        return self._masses

    def basis_state(self) -> WalkerState:
        return WalkerState(self.basis.copy())

    def basis_states(self) -> list[WalkerState]:
        return [WalkerState(positions.copy()) for positions in self.starts]

    def basis_state_weights(self) -> list[float] | None:
        return None if self.start_weights is None else self.start_weights.tolist()

    def beads(self, state: WalkerState) -> np.ndarray:
        return np.asarray(state.positions)

    def forces(self, x: torch.Tensor) -> torch.Tensor:
        """Forces (kJ/mol/nm) on a batch of bead positions (batch, n, 3) nm (eager): what a user's forces model returns
        (``cg.models``, ``returns: forces``), the model's own closed-form ``forces`` when it has one (e.g.
        :class:`westbench.cg.reference.GoModel`), else minus the autograd gradient of its energy."""
        if getattr(self.model, "returns_forces", False):  # a user's model that gives forces (cg.models)
            return self.model(x.detach())
        if hasattr(self.model, "forces"):
            return self.model.forces(x).to(x.dtype)
        x = x.detach().requires_grad_(True)
        with torch.enable_grad():
            energy = self.model(x)
            (gradient,) = torch.autograd.grad(energy.sum(), x)
        return -gradient

    @property
    def batch_forces(self) -> "BucketedForces":
        """The force call used by :meth:`propagate`: captured per bucket on CUDA, eager elsewhere."""
        if self._batch_forces is None:
            capture = self.capture
            self._batch_forces = BucketedForces(
                self.forces, capture=capture, pad=capture, on_failure="eager" if self.cuda_graphs == "auto" else "raise"
            )
            log.info("CG forces: %s", "CUDA graphs per batch-size bucket" if capture else "eager")
        return self._batch_forces

    def runtime(self) -> dict:
        """Device, CUDA-graph setting, buckets captured and run eagerly, and any capture failure."""
        record = {
            **super().runtime(),
            "device_setting": self.device_setting,
            "cuda_graphs": self.cuda_graphs,
            "torch": torch.__version__,
        }
        if self._device is not None:
            record["device"] = str(self._device)
            if self._device.type == "cuda":
                record["device_name"] = torch.cuda.get_device_name(self._device)
                record["deterministic_algorithms"] = torch.are_deterministic_algorithms_enabled()
        if self._batch_forces is not None:
            record.update(self._batch_forces.summary())
        return record

    def _problems(self, x: torch.Tensor, f: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Per walker, on the device: a code (0 fine, 1 non-finite, 2 bond too long, 3 too short) and the bond."""
        finite = torch.isfinite(f).flatten(1).all(1) & torch.isfinite(x).flatten(1).all(1)
        if x.shape[1] > 1:
            lengths = bonds(x)
            low, high = lengths.nan_to_num(nan=0.0).amin(1), lengths.nan_to_num(nan=float("inf")).amax(1)
        else:
            low = high = x.new_full((len(x),), self.bounds[0])
        code = torch.where(~finite, 1, torch.where(high > self.bounds[1], 2, torch.where(low < self.bounds[0], 3, 0)))
        return code, torch.where(code == 2, high, low)

    def propagate(
        self, starts: Sequence[WalkerState], n_steps: int, save_every: int, seeds: Sequence[int]
    ) -> list[SegmentResult]:
        n_walkers, n_frames = len(starts), n_steps // save_every
        if n_walkers == 0:
            return []
        options = {"dtype": self.dtype, "device": self.device}
        shape = tuple(np.asarray(starts[0].positions).shape)
        keys = torch.as_tensor([int(s) for s in seeds], dtype=torch.int64, device=self.device)
        sigma = torch.sqrt(self.kt / self.masses)  # (n, 1) nm/ps
        x = torch.as_tensor(np.stack([np.asarray(s.positions) for s in starts]), **options)
        drawn = gaussian(keys, torch.zeros(1, dtype=torch.int64), shape, self.dtype)[0] * sigma  # step 0: velocities
        given = [s.velocities is not None for s in starts]
        if any(given):
            known = torch.as_tensor(
                np.stack([np.asarray(s.velocities) if s.velocities is not None else np.zeros(shape) for s in starts]),
                **options,
            )
            v = torch.where(torch.as_tensor(given, device=self.device)[:, None, None], known, drawn)
        else:
            v = drawn
        a = math.exp(-self.friction * self.dt)
        kick = math.sqrt(1.0 - a * a) * sigma  # (n, 1)
        half, push = 0.5 * self.dt, 0.5 * self.dt / self.masses  # push: dt / 2m, (n, 1)
        forces = self.batch_forces
        f = forces(x)
        code, length = self._problems(x, f)
        ended_at = torch.where(code > 0, 0, -1)
        active = code == 0
        frames = torch.empty((n_frames, n_walkers, *shape), **options)
        for frame in range(n_frames):
            first = frame * save_every + 1
            noise = gaussian(keys, torch.arange(first, first + save_every, device=self.device), shape, self.dtype)
            start_x, start_v, start_f = x, v, f  # the last valid state of every walker
            for step in range(save_every):  # BAOAB; no check, no host synchronisation, no walker loop
                v = torch.addcmul(v, f, push)
                x = torch.add(x, v, alpha=half)
                v = torch.addcmul(v * a, kick, noise[step])
                x = torch.add(x, v, alpha=half)
                f = forces(x)
                v = torch.addcmul(v, f, push)
            new_code, new_length = self._problems(x, f)  # on the device, once per frame
            ends = active & (new_code > 0)
            code = torch.where(ends, new_code, code)
            length = torch.where(ends, new_length, length)
            ended_at = torch.where(ends, first + save_every - 1, ended_at)
            active = active & ~ends
            keep = active[:, None, None]
            x, v, f = torch.where(keep, x, start_x), torch.where(keep, v, start_v), torch.where(keep, f, start_f)
            frames[frame] = x
        return self._results(starts, seeds, frames, x, v, code, length, ended_at)

    def _results(self, starts, seeds, frames, x, v, code, length, ended_at) -> list[SegmentResult]:
        """Copy to the host once; status and message of every walker that ended."""
        frames = frames.transpose(0, 1).cpu().numpy().astype(np.float32)
        x, v = x.cpu().numpy().astype(np.float64), v.cpu().numpy().astype(np.float64)
        code, length, ended_at = code.tolist(), length.tolist(), ended_at.tolist()
        results = []
        for i, start in enumerate(starts):
            if code[i] == 0:
                results.append(SegmentResult(frames[i], WalkerState(x[i], v[i])))
                continue
            problem = {
                1: "exploded: non-finite forces or positions",
                2: f"exploded: bond {10 * length[i]:.2f} A > {10 * self.bounds[1]:.2f} A",
                3: f"imploded: bond {10 * length[i]:.2f} A < {10 * self.bounds[0]:.2f} A",
            }[code[i]]
            status, _, reason = problem.partition(": ")
            log.warning("walker %d (seed %d) ended at step %d: %s", i, seeds[i], ended_at[i], problem)
            final = WalkerState(
                np.asarray(start.positions).copy(),
                None if start.velocities is None else np.asarray(start.velocities).copy(),
            )
            results.append(SegmentResult(frames[i], final, status, f"step {ended_at[i]}: {reason}"))
        return results
