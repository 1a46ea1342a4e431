"""Known answers of the calibration study: each engine's equilibrium, from the ground truth and its own sample.

The reference energy ``U`` and an engine's potential ``U'`` at its temperature ``T'`` are known at every frame, so
``w ∝ exp(-U'(x) / kT' + U(x) / kT)`` turns the ground truth into the perturbed equilibrium. Alone that rests on
the ground truth's tails where the perturbed equilibrium lies further out (a hotter engine): the few high-energy
frames carry its weight, and the answer's bias changed sign from one ground truth to the next. An engine that
changes the equilibrium therefore gets its own unbiased sample too (``calibration.groundtruth.perturbed_runs``,
:func:`westbench.calibration.groundtruth.run_equilibrium_sample`), and the two samples are combined by MBAR
(pymbar; Shirts & Chodera 2008) in :mod:`westbench.calibration.multistate`: the engine's weight of every frame of
both, a :class:`~westbench.calibration.known_answer.KnownAnswer`, which :mod:`westbench.calibration.table` scores
as the suite scores an engine.

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
