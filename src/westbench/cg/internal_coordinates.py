"""Internal coordinates of a C-alpha chain in torch (differentiable, batched), and physical constants.

Examples
--------
>>> import torch
>>> x = torch.tensor([[[0.0, 0, 0], [0.38, 0, 0], [0.38, 0.38, 0], [0.38, 0.38, 0.38]]])
>>> [round(float(b), 3) for b in bonds(x)[0]]
[0.38, 0.38, 0.38]
>>> round(float(angles(x)[0, 0]), 4), round(float(dihedrals(x)[0, 0]), 4)
(1.5708, 1.5708)
"""

from __future__ import annotations

import torch

from westbench.constants import BOLTZMANN_KJ_MOL_K


def kt(temperature_k: float) -> float:
    """Thermal energy in kJ/mol."""
    return BOLTZMANN_KJ_MOL_K * float(temperature_k)


def bonds(x: torch.Tensor) -> torch.Tensor:
    """Consecutive bead distances (..., n - 1) of positions (..., n, 3)."""
    return torch.linalg.vector_norm(x[..., 1:, :] - x[..., :-1, :], dim=-1)


def angles(x: torch.Tensor) -> torch.Tensor:
    """Bead triplet angles (..., n - 2) in radians; atan2 keeps the gradient finite at 0 and pi."""
    a = x[..., :-2, :] - x[..., 1:-1, :]
    b = x[..., 2:, :] - x[..., 1:-1, :]
    return torch.atan2(torch.linalg.vector_norm(torch.cross(a, b, dim=-1), dim=-1), (a * b).sum(-1))


def dihedrals(x: torch.Tensor) -> torch.Tensor:
    """Bead quadruplet dihedrals (..., n - 3) in radians, IUPAC sign (as mdtraj.compute_dihedrals)."""
    b0 = x[..., 1:-2, :] - x[..., :-3, :]
    b1 = x[..., 2:-1, :] - x[..., 1:-2, :]
    b2 = x[..., 3:, :] - x[..., 2:-1, :]
    n1 = torch.cross(b0, b1, dim=-1)
    n2 = torch.cross(b1, b2, dim=-1)
    y = torch.linalg.vector_norm(b1, dim=-1) * (b0 * n2).sum(-1)
    return torch.atan2(y, (n1 * n2).sum(-1))


def pair_distances(x: torch.Tensor, pairs: torch.Tensor) -> torch.Tensor:
    """Distances (..., n_pairs) of the bead pairs ``pairs`` (n_pairs, 2)."""
    return torch.linalg.vector_norm(x[..., pairs[:, 1], :] - x[..., pairs[:, 0], :], dim=-1)
