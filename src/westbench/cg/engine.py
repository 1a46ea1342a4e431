"""The CG engine for weighted ensemble: batched Langevin dynamics of C-alpha beads under a CG model.

Every segment of an iteration is integrated together, one batch (WESTPA hands the whole
iteration to one call: ``block_size`` in west.cfg). Integrator: BAOAB Langevin (as OpenMM's
LangevinMiddleIntegrator) at ``temperature_k``, ``friction_per_ps``, ``timestep_fs``; bead masses
are the residue masses of the basis structure unless ``bead_mass_amu`` is set. Each walker draws
its noise from its own generator seeded by its segment seed, so a walker's trajectory does not
depend on the other walkers of the batch.

A walker ends when a step gives non-finite forces or positions ("exploded"), a bond longer than
``bond_max_angstrom`` ("exploded") or shorter than ``bond_min_angstrom`` ("imploded"): it is
logged, its remaining frames repeat its last valid frame, its status and message are returned,
and its final state is its start (a continuing walker restarts from there with a new seed). The
other walkers go on.

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
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import torch

from westbench.cg.geometry import BOLTZMANN_KJ_MOL_K, bonds
from westbench.cg.model import load_energy_model
from westbench.cg.train import resolve_device
from westbench.engines.base import Engine, SegmentResult, WalkerState

log = logging.getLogger(__name__)


def basis_from_pdb(pdb_path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """C-alpha positions (n, 3) nm and residue masses (n,) amu of a structure."""
    from openmm import app, unit

    from westbench.features import ca_atom_indices

    pdb = app.PDBFile(str(pdb_path))
    atoms = list(pdb.topology.atoms())
    ca = ca_atom_indices(pdb.topology)
    positions = pdb.getPositions(asNumpy=True).value_in_unit(unit.nanometer)[ca]
    masses = [sum(a.element.mass.value_in_unit(unit.dalton) for a in atoms[i].residue.atoms() if a.element) for i in ca]
    return np.asarray(positions, dtype=np.float64), np.asarray(masses, dtype=np.float64)


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
    threads : int, optional
        torch CPU threads.
    """

    def __init__(self, model: str | Path, protein: str, basis_pdb: str | Path | None = None, basis_positions=None,
                 langevin: Mapping | None = None, explosion: Mapping | None = None, device: str = "auto",
                 threads: int | None = None, bead_mass_amu: float | None = None):
        langevin = {"temperature_k": 300.0, "friction_per_ps": 1.0, "timestep_fs": 4.0, "bead_mass_amu": bead_mass_amu,
                    **dict(langevin or {})}
        explosion = {"bond_min_angstrom": 2.5, "bond_max_angstrom": 6.0, **dict(explosion or {})}
        if threads:
            torch.set_num_threads(int(threads))
        self.device = resolve_device(device)
        self.model_path, self.protein = str(model), protein
        self.model = load_energy_model(model, protein=protein, device=self.device)
        self.dtype = next((t.dtype for t in [*self.model.parameters(), *self.model.buffers()] if t.is_floating_point()),
                          torch.float32)
        if basis_pdb is not None:
            self.basis, masses = basis_from_pdb(basis_pdb)
        elif basis_positions is not None:
            self.basis = np.asarray(basis_positions, dtype=np.float64)
            masses = np.full(len(self.basis), 110.0)
        else:
            raise ValueError("CGEngine needs basis_pdb or basis_positions")
        if langevin["bead_mass_amu"] is not None:
            masses = np.full(len(self.basis), float(langevin["bead_mass_amu"]))
        self.masses = torch.as_tensor(masses, dtype=self.dtype, device=self.device)[:, None]
        self.kt = BOLTZMANN_KJ_MOL_K * float(langevin["temperature_k"])
        self.dt = float(langevin["timestep_fs"]) / 1000.0
        self.friction = float(langevin["friction_per_ps"])
        self.bounds = (float(explosion["bond_min_angstrom"]) / 10.0, float(explosion["bond_max_angstrom"]) / 10.0)
        self.settings = {"langevin": langevin, "explosion": explosion, "device": str(self.device)}
        log.info("CG engine: model %s for %s, %d beads, %s, dt %.1f fs, bonds allowed %.2f-%.2f nm", model, protein,
                 len(self.basis), self.device, 1000 * self.dt, *self.bounds)

    def basis_state(self) -> WalkerState:
        return WalkerState(self.basis.copy())

    def beads(self, state: WalkerState) -> np.ndarray:
        return np.asarray(state.positions)

    def forces(self, x: torch.Tensor) -> torch.Tensor:
        """Forces (kJ/mol/nm) on a batch of bead positions (batch, n, 3) nm."""
        x = x.detach().requires_grad_(True)
        with torch.enable_grad():
            energy = self.model(x)
            (gradient,) = torch.autograd.grad(energy.sum(), x)
        return -gradient

    def _check(self, x: torch.Tensor, f: torch.Tensor) -> list[str]:
        """Per walker: "" when fine, else "exploded"/"imploded" and why."""
        lengths = bonds(x) if x.shape[1] > 1 else x.new_zeros(len(x), 1) + self.bounds[0]
        finite = torch.isfinite(f).flatten(1).all(1) & torch.isfinite(x).flatten(1).all(1)
        low, high = lengths.nan_to_num(nan=0.0).amin(1), lengths.nan_to_num(nan=float("inf")).amax(1)
        problems = []
        for ok, lo, hi in zip(finite.tolist(), low.tolist(), high.tolist()):
            if not ok:
                problems.append("exploded: non-finite forces or positions")
            elif hi > self.bounds[1]:
                problems.append(f"exploded: bond {10 * hi:.2f} A > {10 * self.bounds[1]:.2f} A")
            elif lo < self.bounds[0]:
                problems.append(f"imploded: bond {10 * lo:.2f} A < {10 * self.bounds[0]:.2f} A")
            else:
                problems.append("")
        return problems

    def propagate(self, starts: Sequence[WalkerState], n_steps: int, save_every: int,
                  seeds: Sequence[int]) -> list[SegmentResult]:
        n_walkers, n_frames = len(starts), n_steps // save_every
        if n_walkers == 0:
            return []
        options = {"dtype": self.dtype, "device": self.device}
        generators = [torch.Generator().manual_seed(int(seed)) for seed in seeds]
        sigma = torch.sqrt(self.kt / self.masses)  # (n, 1) nm/ps
        x = torch.as_tensor(np.stack([np.asarray(s.positions) for s in starts]), **options)
        velocities = []
        for start, generator in zip(starts, generators):
            if start.velocities is not None:
                velocities.append(torch.as_tensor(np.asarray(start.velocities), **options))
            else:
                velocities.append(torch.randn(x.shape[1:], generator=generator, dtype=self.dtype).to(self.device) * sigma)
        v = torch.stack(velocities)
        a = math.exp(-self.friction * self.dt)
        b = math.sqrt(1.0 - a * a)
        status, messages = ["ok"] * n_walkers, [""] * n_walkers
        active = torch.ones(n_walkers, dtype=torch.bool, device=self.device)
        f = self.forces(x)
        self._end(self._check(x, f), torch.arange(n_walkers, device=self.device), 0, status, messages, active, seeds)
        frames = torch.empty((n_walkers, n_frames, *x.shape[1:]), **options)
        half = 0.5 * self.dt
        for frame in range(n_frames):
            noise = torch.stack([torch.randn((save_every, *x.shape[1:]), generator=g, dtype=self.dtype)
                                 for g in generators], dim=1).to(self.device)
            for step in range(save_every):
                index = active.nonzero().squeeze(1)
                if len(index) == 0:
                    break
                xi, vi, fi = x[index], v[index], f[index]
                vi = vi + half * fi / self.masses
                xi = xi + half * vi
                vi = a * vi + b * sigma * noise[step, index]
                xi = xi + half * vi
                fi = self.forces(xi)
                vi = vi + half * fi / self.masses
                problems = self._check(xi, fi)
                good = torch.tensor([not p for p in problems], device=self.device)
                x[index[good]], v[index[good]], f[index[good]] = xi[good], vi[good], fi[good]
                self._end(problems, index, frame * save_every + step + 1, status, messages, active, seeds)
            frames[:, frame] = x
        results = []
        for i, start in enumerate(starts):
            if status[i] == "ok":
                final = WalkerState(x[i].cpu().numpy().astype(np.float64), v[i].cpu().numpy().astype(np.float64))
            else:
                final = WalkerState(np.asarray(start.positions).copy(),
                                    None if start.velocities is None else np.asarray(start.velocities).copy())
            results.append(SegmentResult(frames[i].cpu().numpy().astype(np.float32), final, status[i], messages[i]))
        return results

    def _end(self, problems, index, step, status, messages, active, seeds) -> None:
        for walker, problem in zip(index.tolist(), problems):
            if problem:
                status[walker], _, reason = problem.partition(": ")
                messages[walker] = f"step {step}: {reason}"
                active[walker] = False
                log.warning("walker %d (seed %d) ended at step %d: %s", walker, seeds[walker], step, problem)
