"""Exact predictions of the calibration study: the ground truth reweighted to each engine's equilibrium.

The reference energy ``U`` and an engine's potential ``U'`` at its temperature ``T'`` are known at every
ground-truth frame, so ``w ∝ exp(-U'(x) / kT' + U(x) / kT)`` turns the ground truth into the perturbed
equilibrium; :mod:`westbench.calibration.table` scores it as the suite scores an engine.

Examples
--------
>>> import numpy as np, torch
>>> class Harmonic(torch.nn.Module):
...     def forward(self, x):
...         return (x ** 2).sum((-1, -2))
>>> x = np.random.default_rng(0).normal(size=(1000, 1, 1))
>>> w = reweighting_weights(x, Harmonic(), Harmonic(), 300.0, 300.0)
>>> bool(np.allclose(w, 1e-3))
True
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

import numpy as np


def reweighting_weights(
    positions: np.ndarray, reference, perturbed, temperature_k: float, perturbed_temperature_k: float
) -> np.ndarray:
    """Normalized weights that turn ground-truth frames of ``reference`` at ``temperature_k`` into the equilibrium of
    ``perturbed`` at ``perturbed_temperature_k`` (energy models; positions (n, beads, 3) nm):
    :func:`weights_from_energies` of their energies."""
    import torch

    with torch.no_grad():
        x = torch.as_tensor(np.asarray(positions), dtype=torch.float64)
        u = reference(x).double().numpy()
        u_perturbed = perturbed(x).double().numpy()
    return weights_from_energies(u, u_perturbed, temperature_k, perturbed_temperature_k)


def weights_from_energies(
    energy: np.ndarray, perturbed_energy: np.ndarray, temperature_k: float, perturbed_temperature_k: float
) -> np.ndarray:
    """Normalized weights ``exp(-U'/kT' + U/kT)`` from each frame's energies (kJ/mol) under both potentials.

    >>> weights_from_energies(np.array([0.0, 1.0]), np.array([0.0, 1.0]), 300.0, 300.0).tolist()
    [0.5, 0.5]
    """
    from westbench.cg.internal_coordinates import kt

    log_w = -np.asarray(perturbed_energy, dtype=np.float64) / kt(perturbed_temperature_k) + np.asarray(
        energy, dtype=np.float64
    ) / kt(temperature_k)
    w = np.exp(log_w - log_w.max())
    return w / w.sum()


def write_reweighting(
    groundtruth_frames, models: Mapping[str, str | Path], temperatures: Mapping[str, float], reference: str, path
) -> None:
    """One weight vector per engine in ``models`` (the null's is uniform) over the ground-truth frames, as ``.npz``."""
    from westbench.cg.model import load_energy_model
    from westbench.io.frames import read_frames

    positions = read_frames(groundtruth_frames)["ca"]
    base = load_energy_model(models[reference])
    weights = {
        engine: reweighting_weights(
            positions, base, load_energy_model(model), temperatures[reference], temperatures[engine]
        )
        for engine, model in models.items()
    }
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, **weights)
