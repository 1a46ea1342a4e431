"""The physical prior of a C-alpha CG model, fitted to ground-truth distributions by Boltzmann inversion.

Terms (each optional, ``terms``):

- ``bonds``: harmonic in each consecutive C-alpha distance, ``k/2 (r - r0)^2``, Jacobian ``r^2``;
- ``angles``: harmonic in each C-alpha triplet angle, ``k/2 (theta - theta0)^2``, Jacobian ``sin(theta)``;
- ``dihedrals``: a Fourier series per quadruplet, ``sum_n a_n cos(n phi) + b_n sin(n phi)``;
- ``repulsion``: ``kT (sigma / r)^6`` between beads at least ``repulsion_min_separation`` apart
  in sequence, ``sigma`` the closest such distance seen in the data (the energy there is kT).

Boltzmann inversion: the potential of a coordinate is ``U(x) = -kT ln(p(x) / J(x))`` up to a
constant. For the harmonic terms ``p / J`` is a Gaussian, fitted by its moments under weights
``1 / J`` (:func:`harmonic_by_inversion`); for dihedrals ``-kT ln p`` of a histogram is fitted by
weighted least squares with a Fourier series (:func:`fourier_by_inversion`); a dihedral with fewer
than ``min_samples`` values gets no term. The prior is fixed during training (buffers, not
parameters), as in the CGSchNet family.

Examples
--------
>>> import numpy as np, torch
>>> rng = np.random.default_rng(0)
>>> ca = np.cumsum(rng.normal(0, 0.2, size=(500, 5, 3)), axis=1)
>>> ca[:, 1:] = ca[:, :1] + np.cumsum(0.38 * (d := np.diff(ca, axis=1)) / np.linalg.norm(d, axis=-1, keepdims=True)
...                                  + rng.normal(0, 0.01, size=(500, 4, 3)), axis=1)
>>> prior = fit_prior(ca, temperature_k=300.0)
>>> round(float(prior.bond_r0.mean()), 2)
0.38
>>> prior(torch.tensor(ca[:2], dtype=torch.float32)).shape
torch.Size([2])
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import torch
from torch import nn

from westbench.cg import internal_coordinates
from westbench.config import section_defaults
from westbench.geometry.ca_geometry import bond_angles, bond_lengths, dihedrals

TERMS = ("bonds", "angles", "dihedrals", "repulsion")
_PRIOR = section_defaults("cg.prior")  # the schema owns the prior's defaults
_TEMPERATURE_K = section_defaults("cg.langevin")["temperature_k"]


def repulsion_pairs(n_beads: int, min_separation: int) -> np.ndarray:
    """Bead pairs (i, j), j - i >= ``min_separation``, row-major."""
    i, j = np.triu_indices(n_beads, k=max(int(min_separation), 1))
    return np.column_stack([i, j]).astype(np.int64)


def harmonic_by_inversion(values: np.ndarray, kt: float, jacobian=None) -> tuple[float, float]:
    """Force constant and centre of the harmonic ``U`` with ``p(x) = J(x) exp(-U(x) / kT) / Z``.

    Boltzmann inversion of a harmonic term without a histogram: the inverted density ``p / J`` is a
    Gaussian of mean ``x0`` and variance ``kT / k``, estimated by the moments of ``values`` weighted
    by ``1 / J`` (importance weights). Histogram fits of ``-kT ln(p / J)`` underestimate ``k`` by
    10-30 % with a few hundred values (empty and single-count tail bins); these moments do not.

    Examples
    --------
    >>> r = np.random.default_rng(1).normal(0.38, 0.01, 20000)
    >>> k, r0 = harmonic_by_inversion(r, kt=2.494)
    >>> round(r0, 3), round(k / (2.494 / 0.01**2), 1)
    (0.38, 1.0)
    """
    values = np.asarray(values, dtype=np.float64)
    weights = 1.0 / np.maximum(jacobian(values), 1e-6) if jacobian is not None else np.ones_like(values)
    mean = float(np.average(values, weights=weights))
    var = float(np.average((values - mean) ** 2, weights=weights)) * len(values) / max(len(values) - 1, 1)
    return kt / max(var, 1e-12), mean


def fourier_by_inversion(
    values: np.ndarray, kt: float, bins: int, terms: int, min_samples: int = _PRIOR["min_samples"], ridge: float = 1e-4
) -> np.ndarray:
    """Coefficients (terms, 2) of ``sum_n a_n cos(n phi) + b_n sin(n phi)`` fitted to ``-kT ln p(phi)``.

    Examples
    --------
    >>> phi = np.random.default_rng(2).vonmises(1.0, 2.0, 50000)
    >>> coefficients = fourier_by_inversion(phi, kt=1.0, bins=72, terms=2)
    >>> np.round(coefficients[0], 1).tolist()   # -kT ln p = -2 cos(phi - 1) + c
    [-1.1, -1.7]
    """
    coefficients = np.zeros((terms, 2))
    values = np.asarray(values, dtype=np.float64)
    if len(values) < min_samples or terms == 0:
        return coefficients
    counts, edges = np.histogram(values, bins=bins, range=(-np.pi, np.pi))
    centres = 0.5 * (edges[1:] + edges[:-1])
    used = counts > 0
    if used.sum() < 2 * terms + 1:
        return coefficients
    phi = centres[used]
    design = np.column_stack([np.ones_like(phi)] + [f(n * phi) for n in range(1, terms + 1) for f in (np.cos, np.sin)])
    target = -kt * np.log(counts[used] / counts.sum())
    weights = np.sqrt(counts[used])
    lhs = (design * weights[:, None] ** 2).T @ design + ridge * counts.sum() * np.eye(design.shape[1])
    solution = np.linalg.solve(lhs, (design * weights[:, None] ** 2).T @ target)
    return solution[1:].reshape(terms, 2)


class Prior(nn.Module):
    """Energy (kJ/mol) of C-alpha positions (batch, n_beads, 3) nm from fixed prior terms.

    Built empty for ``n_beads`` (so a saved state dict loads into it); :func:`fit_prior` fills it.
    """

    def __init__(
        self,
        n_beads: int,
        terms: Sequence[str] = TERMS,
        dihedral_terms: int = _PRIOR["dihedral_terms"],
        repulsion_min_separation: int = _PRIOR["repulsion_min_separation"],
        temperature_k: float = _TEMPERATURE_K,
    ):
        super().__init__()
        unknown = set(terms) - set(TERMS)
        if unknown:
            raise ValueError(f"unknown prior terms {sorted(unknown)}; choose from {TERMS}")
        self.n_beads, self.terms = int(n_beads), tuple(terms)
        n = self.n_beads
        self.register_buffer("bond_k", torch.zeros(max(n - 1, 0)))
        self.register_buffer("bond_r0", torch.zeros(max(n - 1, 0)))
        self.register_buffer("angle_k", torch.zeros(max(n - 2, 0)))
        self.register_buffer("angle_theta0", torch.zeros(max(n - 2, 0)))
        self.register_buffer("dihedral_coefficients", torch.zeros(max(n - 3, 0), int(dihedral_terms), 2))
        self.register_buffer("repulsion_pairs", torch.as_tensor(repulsion_pairs(n, repulsion_min_separation)))
        self.register_buffer("repulsion_sigma", torch.zeros(()))
        self.register_buffer("repulsion_epsilon", torch.tensor(internal_coordinates.kt(temperature_k)))
        self.register_buffer("orders", torch.arange(1, int(dihedral_terms) + 1, dtype=torch.float32))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        energy = x.new_zeros(x.shape[:-2])
        if "bonds" in self.terms and self.n_beads > 1:
            energy = energy + (0.5 * self.bond_k * (internal_coordinates.bonds(x) - self.bond_r0) ** 2).sum(-1)
        if "angles" in self.terms and self.n_beads > 2:
            energy = energy + (0.5 * self.angle_k * (internal_coordinates.angles(x) - self.angle_theta0) ** 2).sum(-1)
        if "dihedrals" in self.terms and self.n_beads > 3 and self.orders.numel():
            phi = internal_coordinates.dihedrals(x)[..., None] * self.orders
            c = self.dihedral_coefficients
            energy = energy + (c[..., 0] * torch.cos(phi) + c[..., 1] * torch.sin(phi)).sum((-1, -2))
        if "repulsion" in self.terms and len(self.repulsion_pairs):
            r = internal_coordinates.pair_distances(x, self.repulsion_pairs)
            energy = energy + (self.repulsion_epsilon * (self.repulsion_sigma / r) ** 6).sum(-1)
        return energy

    def describe(self) -> dict:
        """The fitted parameters as plain lists (for the model's JSON record)."""
        return {
            "terms": list(self.terms),
            "bond_k": self.bond_k.tolist(),
            "bond_r0_nm": self.bond_r0.tolist(),
            "angle_k": self.angle_k.tolist(),
            "angle_theta0_rad": self.angle_theta0.tolist(),
            "dihedral_coefficients": self.dihedral_coefficients.tolist(),
            "repulsion_sigma_nm": float(self.repulsion_sigma),
            "repulsion_epsilon": float(self.repulsion_epsilon),
        }


def fit_prior(
    ca: np.ndarray,
    temperature_k: float = _TEMPERATURE_K,
    terms: Sequence[str] = TERMS,
    histogram_bins: int = _PRIOR["histogram_bins"],
    dihedral_terms: int = _PRIOR["dihedral_terms"],
    repulsion_min_separation: int = _PRIOR["repulsion_min_separation"],
    min_samples: int = _PRIOR["min_samples"],
) -> Prior:
    """A :class:`Prior` fitted to C-alpha frames ``ca`` (n_frames, n_beads, 3) nm by Boltzmann inversion."""
    ca = np.asarray(ca, dtype=np.float32)
    kt = internal_coordinates.kt(temperature_k)
    prior = Prior(ca.shape[1], terms, dihedral_terms, repulsion_min_separation, temperature_k)
    with torch.no_grad():
        if ca.shape[1] > 1:
            fits = [harmonic_by_inversion(r, kt, jacobian=np.square) for r in bond_lengths(ca).T]
            prior.bond_k[:], prior.bond_r0[:] = torch.tensor(fits, dtype=torch.float32).T
        if ca.shape[1] > 2:
            fits = [harmonic_by_inversion(t, kt, jacobian=np.sin) for t in bond_angles(ca).T]
            prior.angle_k[:], prior.angle_theta0[:] = torch.tensor(fits, dtype=torch.float32).T
        if ca.shape[1] > 3 and dihedral_terms:
            fits = [
                fourier_by_inversion(p, kt, bins=histogram_bins, terms=dihedral_terms, min_samples=min_samples)
                for p in dihedrals(ca).T
            ]
            prior.dihedral_coefficients[:] = torch.tensor(np.array(fits), dtype=torch.float32)
        pairs = prior.repulsion_pairs.numpy()
        if len(pairs):
            distances = np.linalg.norm(ca[:, pairs[:, 1]] - ca[:, pairs[:, 0]], axis=-1)
            prior.repulsion_sigma.fill_(float(distances.min()))
    return prior


def prior_options(settings: Mapping, temperature_k: float) -> dict:
    """Keyword arguments of :func:`fit_prior` / :class:`Prior` from the ``cg.prior`` config section."""
    settings = {**section_defaults("cg.prior"), **settings}
    return {
        "terms": tuple(settings["terms"]),
        "dihedral_terms": int(settings["dihedral_terms"]),
        "repulsion_min_separation": int(settings["repulsion_min_separation"]),
        "temperature_k": float(temperature_k),
    }
