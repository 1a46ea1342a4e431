"""A structure-based (Go-type) C-alpha reference potential with a known equilibrium: the calibration study's truth.

The form is Clementi, Nymeyer and Onuchic's C-alpha Go model (J. Mol. Biol. 298, 937-953, 2000,
doi:10.1006/jmbi.2000.3693), built from one native structure, every constant in units of the contact
energy ``epsilon``::

    V = sum_bonds      K_r (r - r0)^2                                  K_r = 100 epsilon / A^2
      + sum_angles     K_theta (theta - theta0)^2                      K_theta = 20 epsilon / rad^2
      + sum_dihedrals  K_1 [1 - cos(phi - phi0)] + K_3 [1 - cos(3 (phi - phi0))]   K_1 = epsilon, K_3 = epsilon / 2
      + sum_native     contact_scale epsilon [5 (sigma_ij / r)^12 - 6 (sigma_ij / r)^10]
      + sum_nonnative  epsilon (sigma_rep / r)^12                      sigma_rep = 4 A

with ``r0``, ``theta0``, ``phi0`` and ``sigma_ij`` the native values. Pairs at least
``min_separation`` apart in sequence (Clementi: j > i + 3) are native when their C-alpha atoms are
within ``contact_cutoff_angstrom`` in the native structure (Clementi used side-chain heavy atoms
within 4.5 A; a C-alpha cutoff is the common simplification when only C-alpha atoms are modelled),
and non-native otherwise. The native structure is a local minimum of every term but the non-native
repulsion, which is small there (at least ``sigma_rep`` apart: below ``epsilon`` per pair).

Perturbations with a known answer are constructor arguments: ``contact_scale`` weakens (< 1) or
strengthens the native contacts; a temperature change is the engine's (``langevin.temperature_k``).
The folded fraction is the share of frames with ``Q >= folded_q``, ``Q`` the fraction of native
contacts within ``contact_tolerance`` times their native distance (:func:`contact_fraction`).

:class:`GoModel` meets the CG model contract (:func:`westbench.cg.model.load_energy_model`: C-alpha
positions (n_frames, n_beads, 3) nm to energies (n_frames,) kJ/mol; forces by autograd), so the CG
engine propagates it like any trained model (batched, seeded, explosion checks).

Examples
--------
>>> import torch
>>> from westbench.cg.native import native_ca
>>> model = GoModel(native_ca("1UAO").tolist(), epsilon_kj_mol=2.5)
>>> len(model.native_pairs), round(float(model(torch.tensor([model.native.tolist()]))[0]), 2)
(9, -22.49)
>>> float(contact_fraction(model.native[None], model)[0])
1.0
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import torch
from torch import nn

from westbench.cg import internal_coordinates as geometry
from westbench.config import section_defaults

_REFERENCE = section_defaults("calibration.reference")  # the schema owns the reference potential's defaults

#: Clementi et al. (2000) constants, in units of epsilon (lengths in nm here).
BOND_K_PER_NM2 = 100.0 * 100.0  # 100 epsilon / A^2
ANGLE_K = 20.0
DIHEDRAL_K1, DIHEDRAL_K3 = 1.0, 0.5
REPULSION_SIGMA_NM = 0.4


def contact_pairs(native: np.ndarray, cutoff_nm: float, min_separation: int) -> tuple[np.ndarray, np.ndarray]:
    """Native and non-native pairs (i, j), j - i >= ``min_separation``: native within ``cutoff_nm`` in ``native``.

    Examples
    --------
    >>> chain = np.zeros((6, 3)); chain[:, 0] = 0.38 * np.arange(6); chain[5] = [0.1, 0.2, 0.0]
    >>> native, other = contact_pairs(chain, cutoff_nm=0.65, min_separation=4)
    >>> native.tolist(), other.tolist()
    ([[0, 5], [1, 5]], [[0, 4]])
    """
    i, j = np.triu_indices(len(native), k=max(int(min_separation), 1))
    distances = np.linalg.norm(native[j] - native[i], axis=-1)
    close = distances <= cutoff_nm
    pairs = np.column_stack([i, j]).astype(np.int64)
    return pairs[close], pairs[~close]


class GoModel(nn.Module):
    """Clementi-form C-alpha Go model of one native structure (see the module docstring).

    Parameters
    ----------
    native : sequence of (x, y, z)
        Native C-alpha positions, nm.
    epsilon_kj_mol : float
        The contact energy; every force constant is a multiple of it.
    contact_scale : float
        Factor on the native-contact term (1 = the reference; 0.9 = contacts 10 % weaker).
    contact_cutoff_angstrom, min_separation : float, int
        Native-contact definition (C-alpha distance in the native structure; sequence separation).
    contact_tolerance, folded_q : float
        A contact is formed within ``contact_tolerance`` times its native distance; folded at ``Q >= folded_q``.
    dtype : {"float32", "float64"}
    """

    def __init__(
        self,
        native: Sequence[Sequence[float]],
        epsilon_kj_mol: float = 2.5,
        contact_scale: float = 1.0,
        contact_cutoff_angstrom: float = _REFERENCE["contact_cutoff_angstrom"],
        min_separation: int = _REFERENCE["min_separation"],
        contact_tolerance: float = _REFERENCE["contact_tolerance"],
        folded_q: float = _REFERENCE["folded_q"],
        dtype: str = "float64",
    ):
        super().__init__()
        native = np.asarray(native, dtype=np.float64)
        if native.ndim != 2 or native.shape[1] != 3 or len(native) < 4:
            raise ValueError(f"native must be (n_beads >= 4, 3) C-alpha positions in nm, not shape {native.shape}")
        self.kwargs = {
            "native": native.tolist(),
            "epsilon_kj_mol": float(epsilon_kj_mol),
            "contact_scale": float(contact_scale),
            "contact_cutoff_angstrom": float(contact_cutoff_angstrom),
            "min_separation": int(min_separation),
            "contact_tolerance": float(contact_tolerance),
            "folded_q": float(folded_q),
            "dtype": dtype,
        }
        self.epsilon, self.contact_scale = float(epsilon_kj_mol), float(contact_scale)
        self.contact_tolerance, self.folded_q = float(contact_tolerance), float(folded_q)
        torch_dtype = {"float32": torch.float32, "float64": torch.float64}[dtype]
        x = torch.as_tensor(native, dtype=torch.float64)[None]
        native_pairs, other_pairs = contact_pairs(native, contact_cutoff_angstrom / 10.0, min_separation)
        self.register_buffer("native", x[0].to(torch_dtype))
        self.register_buffer("bond_r0", geometry.bonds(x)[0].to(torch_dtype))
        self.register_buffer("angle_theta0", geometry.angles(x)[0].to(torch_dtype))
        self.register_buffer("dihedral_phi0", geometry.dihedrals(x)[0].to(torch_dtype))
        self.register_buffer("native_pairs", torch.as_tensor(native_pairs))
        self.register_buffer(
            "native_sigma", geometry.pair_distances(x, torch.as_tensor(native_pairs))[0].to(torch_dtype)
        )
        self.register_buffer("other_pairs", torch.as_tensor(other_pairs))
        # Every pair (native first) as a signed incidence matrix D, x_j - x_i = D @ x (forces: 0.73 ms at 276 walkers,
        # 1.5 ms with index gathers and index_add_). Not a buffer, so state dicts stay as they were.
        pairs = np.concatenate([native_pairs, other_pairs]).reshape(-1, 2)
        incidence = np.zeros((len(pairs), len(native)))
        incidence[np.arange(len(pairs)), pairs[:, 1]], incidence[np.arange(len(pairs)), pairs[:, 0]] = 1.0, -1.0
        self._pair_incidence = torch.as_tensor(incidence, dtype=torch_dtype)
        self._ones = torch.ones(3, 1, dtype=torch_dtype)

    def terms(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        """Each term's energy (kJ/mol), per frame: bonds, angles, dihedrals, contacts, repulsion."""
        e = self.epsilon
        phi = geometry.dihedrals(x) - self.dihedral_phi0
        native = geometry.pair_distances(x, self.native_pairs)
        ratio = self.native_sigma / native
        energies = {
            "bonds": (e * BOND_K_PER_NM2 * (geometry.bonds(x) - self.bond_r0) ** 2).sum(-1),
            "angles": (e * ANGLE_K * (geometry.angles(x) - self.angle_theta0) ** 2).sum(-1),
            "dihedrals": (e * (DIHEDRAL_K1 * (1 - torch.cos(phi)) + DIHEDRAL_K3 * (1 - torch.cos(3 * phi)))).sum(-1),
            "contacts": (self.contact_scale * e * (5 * ratio**12 - 6 * ratio**10)).sum(-1),
        }
        if len(self.other_pairs):
            other = geometry.pair_distances(x, self.other_pairs)
            energies["repulsion"] = (e * (REPULSION_SIGMA_NM / other) ** 12).sum(-1)
        return energies

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.to(self.native.dtype)
        return sum(self.terms(x).values())

    def forces(self, x: torch.Tensor) -> torch.Tensor:
        """Forces (kJ/mol/nm) = -dV/dx in closed form, (batch, n, 3): the CG engine's force call for this model.

        The same values autograd gives on :meth:`forward` (the unit tests compare them with finite differences),
        at 40 % of its cost (276 walkers): the engine calls it every step, and at ten beads the cost is per operation.
        """
        x = x.to(self.native.dtype)
        dot = lambda a, b, ones=self._ones.to(x): (a * b) @ ones  # noqa: E731  (torch's sum over xyz: 6x the cost)
        e = self.epsilon
        f = torch.zeros_like(x)
        # Bonds: V = K_r (r - r0)^2.
        d = x[:, 1:] - x[:, :-1]
        r = torch.sqrt(dot(d, d))
        push = (2 * e * BOND_K_PER_NM2 * (r - self.bond_r0[:, None])) * d / r
        f[:, :-1] += push
        f[:, 1:] -= push
        # Angles: V = K_theta (theta - theta0)^2 at the middle bead.
        a, b = -d[:, :-1], d[:, 1:]  # from the middle bead to its neighbours
        la, lb = r[:, :-1], r[:, 1:]
        ua, ub = a / la, b / lb
        cos = dot(ua, ub).clamp(-1.0, 1.0)
        sin = torch.sqrt((1 - cos * cos).clamp_min(1e-12))
        theta = torch.atan2(sin, cos)
        slope = 2 * e * ANGLE_K * (theta - self.angle_theta0[:, None])
        grad_first = (cos * ua - ub) / (la * sin)
        grad_last = (cos * ub - ua) / (lb * sin)
        f[:, :-2] -= slope * grad_first
        f[:, 2:] -= slope * grad_last
        f[:, 1:-1] += slope * (grad_first + grad_last)
        # Dihedrals: V = K_1 [1 - cos(phi - phi0)] + K_3 [1 - cos 3 (phi - phi0)] (Blondel and Karplus 1996 gradient).
        b1, b2, b3 = d[:, :-2], d[:, 1:-1], d[:, 2:]
        m, n = torch.cross(b1, b2, dim=-1), torch.cross(b2, b3, dim=-1)
        l2 = r[:, 1:-1]
        phi = torch.atan2((l2 * dot(b1, n))[..., 0], dot(m, n)[..., 0]) - self.dihedral_phi0
        slope = (e * (DIHEDRAL_K1 * torch.sin(phi) + 3 * DIHEDRAL_K3 * torch.sin(3 * phi)))[..., None]
        g1, g4 = -l2 / dot(m, m) * m, l2 / dot(n, n) * n
        p, q = dot(b1, b2) / (l2 * l2), dot(b3, b2) / (l2 * l2)
        g2 = q * g4 - (1 + p) * g1  # b1 points from the first bead to the second (the sign of p in the paper flips)
        g3 = -(g1 + g2 + g4)  # the angle does not change when all four move together
        f[:, :-3] -= slope * g1
        f[:, 1:-2] -= slope * g2
        f[:, 2:-1] -= slope * g3
        f[:, 3:] -= slope * g4
        # Pairs: native contacts (12-10), then non-native repulsion (12); v = x_j - x_i for every pair at once.
        # Beads lead here, (n, batch * 3), so each product with the incidence matrix is one matrix product.
        incidence = self._pair_incidence.to(x)
        if len(incidence):
            batch, beads = x.shape[:2]
            v = (incidence @ x.transpose(0, 1).reshape(beads, -1)).reshape(len(incidence), batch, 3)
            dist = torch.sqrt(dot(v, v))
            native = len(self.native_pairs)
            radial = torch.cat([self._contact_slope(dist[:native]), self._repulsion_slope(dist[native:])])
            pull = (radial * v / dist).reshape(len(incidence), -1)  # dV/dr along each pair, from i towards j
            f -= (incidence.T @ pull).reshape(beads, batch, 3).transpose(0, 1)
        return f

    def _contact_slope(self, r: torch.Tensor) -> torch.Tensor:
        ratio = self.native_sigma[:, None, None] / r  # r: (pairs, batch, 1)
        return self.contact_scale * self.epsilon * 60.0 / r * (ratio**10 - ratio**12)

    def _repulsion_slope(self, r: torch.Tensor) -> torch.Tensor:
        return -12.0 * self.epsilon * (REPULSION_SIGMA_NM / r) ** 12 / r

    def describe(self) -> dict:
        """The model's definition for its JSON record and the report."""
        return {
            "form": "Clementi, Nymeyer and Onuchic (2000) C-alpha Go model",
            "beads": len(self.native),
            "native_contacts": self.native_pairs.tolist(),
            "nonnative_pairs": len(self.other_pairs),
            **{k: v for k, v in self.kwargs.items() if k != "native"},
        }


def contact_fraction(x, model: GoModel) -> np.ndarray:
    """Q per frame: the fraction of native contacts within ``contact_tolerance`` times their native distance."""
    x = torch.as_tensor(np.asarray(x), dtype=model.native.dtype)
    distances = geometry.pair_distances(x, model.native_pairs)
    return (distances <= model.contact_tolerance * model.native_sigma).to(torch.float64).mean(-1).numpy()


def folded_fraction(x, model: GoModel, weights=None) -> float:
    """The (weighted) share of frames with ``Q >= folded_q``."""
    folded = contact_fraction(x, model) >= model.folded_q
    return float(np.average(folded, weights=weights))


def save_reference(model: GoModel, path: str | Path, extra: Mapping | None = None) -> None:
    """``path`` (state dict) and its JSON record (class, constructor arguments, ``extra``), the model contract's
    state-dict form, so :func:`westbench.cg.model.load_energy_model` and the CG engine read it like a trained model."""
    from westbench.cg.model import model_record

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), path)
    record = {
        "class": "westbench.cg.reference:GoModel",
        "kwargs": model.kwargs,
        "description": model.describe(),
        **dict(extra or {}),
    }
    model_record(path).write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")


def build_reference(
    native: str, reference: Mapping, path: str | Path, contact_scale: float = 1.0, temperature_scale: float = 1.0
) -> GoModel:
    """The Go model of a native structure (:func:`westbench.cg.native.native_ca`), saved to ``path``.

    ``reference`` is the ``calibration.reference`` section; ``contact_scale`` the engine's perturbation
    (``temperature_scale`` is the engine's, not the model's: recorded only).
    """
    from westbench.cg.native import native_ca

    model = GoModel(native_ca(native).tolist(), contact_scale=contact_scale, **dict(reference))
    save_reference(
        model,
        path,
        extra={
            "native": native,
            "perturbation": {"contact_scale": float(contact_scale), "temperature_scale": float(temperature_scale)},
        },
    )
    return model


def build_references(
    native: str, reference: Mapping, native_pdb: str | Path, models: Mapping[str | Path, Mapping]
) -> None:
    """The native structure as a C-alpha PDB file and one model per ``{path: perturbation}``
    (``contact_scale``, ``temperature_scale``): the calibration study's reference and its perturbed copies."""
    from westbench.cg.native import write_native_pdb

    write_native_pdb(native, native_pdb)
    for path, change in models.items():
        build_reference(native, reference, path, **change)
