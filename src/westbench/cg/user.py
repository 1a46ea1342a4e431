"""A user's CG model as one config entry: ``cg.models.<name>``, scored as engine ``cg_<name>``.

::

    cg:
      models:
        mine:
          path: models/{protein}.pt      # absolute or relative to the working directory; read, never written
          format: torchscript            # or state_dict (then `class`, `kwargs`, `python_path`)
          returns: energy                # energies (n_frames,); or forces (n_frames, n_beads, 3)
          length_unit: nm                # what the model's input positions are in: nm or angstrom
          energy_unit: kj/mol            # what its energies (forces: per length unit) are in: kj/mol or kcal/mol
          prior: none                    # or fitted: add westbench's prior (cg.prior) fitted to the ground truth

The model contract: ``forward(x)`` takes C-alpha positions, a float tensor (n_frames, n_beads, 3) in
``length_unit`` (beads in residue order of the prepared structure) and returns energies (n_frames,) in
``energy_unit`` (forces are minus their autograd gradient), or, with ``returns: forces``, the forces
(n_frames, n_beads, 3) in ``energy_unit`` per ``length_unit``. A module with a ``for_protein(protein_id)``
method is asked for that protein's module first. :func:`load_user_model` wraps the model so the
engine always sees nm and kJ/mol; :func:`check_user_model` (rule ``cg_model_check``) calls it on the
protein's basis structure before any WE run and stops with a message naming the entry, what is wrong
and the fix. The workflow never writes the file: it is an input of the check and of the WE run, not
an output of any rule (a path under ``results/`` is refused).

Examples
--------
>>> import tempfile, os, numpy as np, torch
>>> class Harmonic(torch.nn.Module):
...     def forward(self, x):
...         return 0.5 * (torch.linalg.vector_norm(x[:, 1:] - x[:, :-1], dim=-1) - 3.8).pow(2).sum(-1)
>>> path = os.path.join(tempfile.mkdtemp(), "m.pt"); torch.jit.script(Harmonic()).save(path)
>>> spec = {"path": path, "format": "torchscript", "returns": "energy", "length_unit": "angstrom",
...         "energy_unit": "kcal/mol"}
>>> model = load_user_model(spec, protein="p")
>>> x = torch.zeros(1, 3, 3); x[0, :, 0] = torch.tensor([0.0, 0.4, 0.8])  # nm: bonds 4.0 Angstrom
>>> round(float(model(x)), 4)  # 2 bonds x 0.5 x 0.2^2 kcal/mol, in kJ/mol
0.1674
>>> check_user_model(spec, "mine", np.asarray(x[0]), protein="p")["n_beads"]
3
"""

from __future__ import annotations

import hashlib
import json
import warnings
from pathlib import Path
from typing import Mapping

import numpy as np
import torch
from torch import nn

from westbench.config import section_defaults
from westbench.errors import ConfigError

_ENTRY = section_defaults("cg.models.*")  # the schema owns a model entry's defaults

#: Factors to nm and kJ/mol.
LENGTH_NM = {"nm": 1.0, "angstrom": 0.1}
ENERGY_KJ_MOL = {"kj/mol": 1.0, "kcal/mol": 4.184}


def with_defaults(spec: Mapping) -> dict:
    """A ``cg.models`` entry with the schema's defaults of the keys it leaves out (the one owner of them)."""
    from westbench.config import load_schema

    node = load_schema()["properties"]["cg"]["properties"]["models"]["additionalProperties"]["properties"]
    return {**{key: value["default"] for key, value in node.items() if "default" in value}, **dict(spec)}


class ModelContractError(ConfigError):
    """A user's CG model (``cg.models.<name>``) cannot be loaded or does not meet the model contract."""


class UserModel(nn.Module):
    """A user's module seen in nm and kJ/mol, with westbench's fitted prior added when configured.

    ``returns_forces``: the module gives forces; the CG engine then calls it for forces instead of
    differentiating an energy.
    """

    def __init__(
        self,
        module: nn.Module,
        *,
        returns: str = _ENTRY["returns"],
        length_unit: str = _ENTRY["length_unit"],
        energy_unit: str = _ENTRY["energy_unit"],
        prior: nn.Module | None = None,
    ):
        super().__init__()
        self.module, self.prior = module, prior
        self.returns_forces = returns == "forces"
        self.to_model_length = 1.0 / LENGTH_NM[length_unit]  # nm -> the model's length unit
        self.energy_factor = ENERGY_KJ_MOL[energy_unit]
        self.force_factor = self.energy_factor * self.to_model_length  # (energy unit / length unit) -> kJ/mol/nm

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.module(x * self.to_model_length)
        if self.returns_forces:
            forces = out * self.force_factor
            if self.prior is not None:
                with torch.enable_grad():
                    y = x.detach().requires_grad_(True)
                    (gradient,) = torch.autograd.grad(self.prior(y).sum(), y)
                forces = forces - gradient
            return forces
        energy = out * self.energy_factor
        return energy if self.prior is None else energy + self.prior(x)


def model_path(spec: Mapping, protein: str) -> str:
    """The model file of one protein: ``path`` with ``{protein}`` replaced."""
    return str(spec["path"]).replace("{protein}", protein)


def _load_module(spec: Mapping, path: str, where: str) -> nn.Module:
    if not Path(path).is_file():
        raise ModelContractError(
            f"{where}: model file {path} not found. Fix: set `path` to your model file "
            "(absolute, or relative to the working directory; {protein} = the protein id)."
        )
    if spec["format"] == "torchscript":
        try:
            with warnings.catch_warnings():  # torch.jit is deprecated in torch 2.13, still the format users ship
                warnings.simplefilter("ignore", DeprecationWarning)
                return torch.jit.load(path, map_location="cpu")
        except Exception as exc:
            raise ModelContractError(
                f"{where}: {path} is not a TorchScript file ({type(exc).__name__}: "
                f"{str(exc).splitlines()[0] if str(exc) else ''}). Fix: save it with "
                "torch.jit.script(model).save(path), or set format: state_dict with `class`."
            ) from None
    if not spec.get("class"):
        raise ModelContractError(
            f'{where}: format state_dict needs `class` ("package.module:Class", built with '
            "`kwargs`). Fix: add it, or save the model as TorchScript."
        )
    from westbench.engines.user import import_class

    try:
        cls = import_class(spec["class"], spec.get("python_path"))
    except (ImportError, AttributeError) as exc:
        raise ModelContractError(
            f"{where}: class {spec['class']!r} cannot be imported ({exc}). Fix: set "
            "`python_path` to the folder holding the module, or correct `class`."
        ) from None
    try:
        module = cls(**dict(spec.get("kwargs") or {}))
    except TypeError as exc:
        raise ModelContractError(f"{where}: {spec['class']}(**kwargs) failed: {exc}. Fix: correct `kwargs`.") from None
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
        module.load_state_dict(state)
    except Exception as exc:
        raise ModelContractError(
            f"{where}: {path} does not load into {spec['class']} ({type(exc).__name__}: "
            f"{str(exc).splitlines()[0] if str(exc) else ''}). Fix: save it with "
            "torch.save(model.state_dict(), path) from the same class and kwargs."
        ) from None
    return module


def load_user_model(spec: Mapping, protein: str, device="cpu", prior_path=None, where: str = "") -> UserModel:
    """Load a ``cg.models`` entry for one protein, wrapped to nm and kJ/mol (:class:`UserModel`).

    ``prior_path``: westbench's fitted prior (a prior-only model.pt, rule ``cg_prior``) for ``prior: fitted``.
    """
    from westbench.cg.model import load_energy_model

    where = where or "cg.models entry"
    spec = with_defaults(spec)
    module = _load_module(spec, model_path(spec, protein), where)
    if hasattr(module, "for_protein"):
        try:
            module = module.for_protein(protein)
        except Exception as exc:
            raise ModelContractError(
                f"{where}: for_protein({protein!r}) failed: {exc}. Fix: a model of this "
                "protein, or one without for_protein."
            ) from None
    prior = load_energy_model(prior_path, protein=protein) if prior_path else None
    model = UserModel(
        module, returns=spec["returns"], length_unit=spec["length_unit"], energy_unit=spec["energy_unit"], prior=prior
    )
    return model.to(device).eval()


def _dtype(module: nn.Module) -> torch.dtype:
    return next((t.dtype for t in [*module.parameters(), *module.buffers()] if t.is_floating_point()), torch.float32)


def check_user_model(
    spec: Mapping, name: str, basis_positions, protein: str, prior_path=None, record_path=None
) -> dict:
    """Load the model and call it on the protein's basis structure: the model contract, checked.

    Checks the file loads as ``format`` says, that ``forward`` takes (n_frames, n_beads, 3) and returns
    (n_frames,) energies (or, with ``returns: forces``, (n_frames, n_beads, 3) forces), finite, and for
    energies differentiable in the positions with finite forces. Returns (and writes to ``record_path``)
    what it found: beads, dtype, energy and largest force at the basis structure (kJ/mol, kJ/mol/nm),
    the file's sha256; warnings for forces above 1e5 kJ/mol/nm (a unit mismatch, e.g. Angstrom read as nm).

    Raises
    ------
    ModelContractError
        Naming the entry ``cg.models.<name> (engine cg_<name>)``, what is wrong and the fix.
    """
    where = f"cg.models.{name} (engine cg_{name}, protein {protein})"
    spec = with_defaults(spec)
    model = load_user_model(spec, protein, prior_path=prior_path, where=where)
    basis = np.asarray(basis_positions, dtype=np.float64)
    n_beads = len(basis)
    dtype = _dtype(model)
    x = torch.as_tensor(np.stack([basis, basis + np.random.default_rng(0).normal(0, 0.005, basis.shape)]), dtype=dtype)
    x.requires_grad_(True)
    out = _forward(model, x, spec, where)
    forces, energy = _forces_and_energy(model, out, x, where)
    largest = float(forces.norm(dim=-1).max())
    warnings_found = []
    if largest > 1e5:
        warnings_found.append(
            f"largest force {largest:.3g} kJ/mol/nm at the prepared structure: check length_unit and energy_unit"
        )
    path = model_path(spec, protein)
    record = {
        "engine": f"cg_{name}",
        "protein": protein,
        "path": str(Path(path).resolve()),
        "sha256": hashlib.sha256(Path(path).read_bytes()).hexdigest(),
        "format": spec["format"],
        "returns": spec["returns"],
        "length_unit": spec["length_unit"],
        "energy_unit": spec["energy_unit"],
        "prior": "fitted" if prior_path else "none",
        "n_beads": n_beads,
        "dtype": str(dtype).replace("torch.", ""),
        "energy_kj_mol": None if energy is None else float(energy[0]),
        "max_force_kj_mol_nm": largest,
        "warnings": warnings_found,
    }
    if record_path is not None:
        Path(record_path).parent.mkdir(parents=True, exist_ok=True)
        Path(record_path).write_text(json.dumps(record, indent=2) + "\n")
    return record


def _forward(model: UserModel, x: torch.Tensor, spec: Mapping, where: str) -> torch.Tensor:
    """``model(x)``, refused unless it runs and returns finite values of the contract's shape."""
    n_beads = x.shape[1]
    expected = (2, n_beads, 3) if model.returns_forces else (2,)
    what = "forces (n_frames, n_beads, 3)" if model.returns_forces else "energies (n_frames,)"
    try:
        with torch.enable_grad():
            out = model(x)
    except Exception as exc:
        raise ModelContractError(
            f"{where}: forward(x) raised {type(exc).__name__}: {exc} for x of shape "
            f"{tuple(x.shape)} ({x.dtype}, C-alpha positions of the prepared structure in "
            f"{spec['length_unit']}). Fix: the contract is forward(x) with x "
            f"(n_frames, n_beads, 3) -> {what}; this protein has {n_beads} beads."
        ) from None
    if not isinstance(out, torch.Tensor) or tuple(out.shape) != expected:
        shape = tuple(out.shape) if isinstance(out, torch.Tensor) else type(out).__name__
        wanted = (
            "energy.sum over beads, one value per frame" if not model.returns_forces else "one force vector per bead"
        )
        raise ModelContractError(
            f"{where}: forward(x) returned {shape} for x of shape {tuple(x.shape)}; the "
            f"contract (returns: {spec['returns']}) is {what}. Fix: return {wanted}, "
            "or set `returns` to what the model gives."
        )
    if not torch.isfinite(out).all():
        raise ModelContractError(
            f"{where}: forward(x) is not finite at the prepared structure. Fix: check the "
            "model's units (length_unit) and that it was trained on this protein."
        )
    return out


def _forces_and_energy(model: UserModel, out: torch.Tensor, x: torch.Tensor, where: str) -> tuple:
    """The forces at ``x`` (the model's or minus its energies' gradient) and the energies (None for forces)."""
    if model.returns_forces:
        return out.detach(), None
    if not out.requires_grad:
        raise ModelContractError(
            f"{where}: the energies do not depend differentiably on the positions (no "
            "autograd graph), so there are no forces. Fix: compute the energy from x with "
            "torch operations (no .detach(), .numpy() or torch.no_grad()), or return forces "
            "and set returns: forces."
        )
    (gradient,) = torch.autograd.grad(out.sum(), x, allow_unused=True)
    if gradient is None or not torch.isfinite(gradient).all():
        raise ModelContractError(
            f"{where}: the energies' gradient in the positions is "
            f"{'missing' if gradient is None else 'not finite'}. Fix: make forward "
            "differentiable in x."
        )
    return -gradient, out.detach()
