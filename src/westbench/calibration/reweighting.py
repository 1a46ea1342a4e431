"""Known answers of the calibration study: each engine's equilibrium, the ground truth reweighted or its own sample.

The reference energy ``U`` and an engine's potential ``U'`` at its temperature ``T'`` are known at every frame, so
``w ∝ exp(-U'(x) / kT' + U(x) / kT)`` turns the ground truth into the perturbed equilibrium. Two things make that a
poor known answer for an engine that changes the equilibrium. It rests on the ground truth's tails where the
perturbed equilibrium lies further out (a hotter engine): the few high-energy frames carry its weight. And it is
scored against the very frames it is made of, so it lacks the finite-sample excess that an engine's independent
sample carries: the answer came out low (every remaining miss of the study an engine *above* its answer). Such an
engine therefore gets its own unbiased sample instead (``calibration.groundtruth.perturbed_runs``,
:func:`westbench.calibration.groundtruth.run_equilibrium_sample`): a brute-force engine of that equilibrium, scored
against the ground truth as the engine is (:class:`~westbench.calibration.known_answer.KnownAnswer`, its ground-truth
weights 0). Combining both samples by MBAR was tried and kept the second flaw: seed 2024's study covered 13 of 19
resolved cells with it, 19 of 19 with the own sample alone (docs/calibration.md).

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

import logging
from pathlib import Path
from typing import Mapping

import numpy as np

log = logging.getLogger(__name__)


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
    groundtruth_frames,
    models: Mapping[str, str | Path],
    temperatures: Mapping[str, float],
    reference: str,
    path,
    samples: Mapping[str, str | Path] | None = None,
    tica_path=None,
    known_paths: Mapping[str, str | Path] | None = None,
) -> None:
    """Every engine of ``models``' known answer: its weights of the ground truth's frames, one vector per engine in
    ``path`` (``.npz``; the null's uniform, the reweighted ground truth's for an engine without a sample, zeros for
    one with), and for each engine of ``samples`` (its own sample,
    :func:`~westbench.calibration.groundtruth.run_equilibrium_sample`) that sample projected on the study's TICA
    (``tica_path``) with uniform weights, a frames file at ``known_paths[engine]``."""
    from westbench.cg.model import load_energy_model
    from westbench.io.frames import read_frames, write_frames
    from westbench.tica.model import TicaModel

    samples, known_paths = dict(samples or {}), dict(known_paths or {})
    positions = read_frames(groundtruth_frames)["ca"]
    base = load_energy_model(models[reference])
    weights = {}
    for engine, model in models.items():
        if engine not in samples:
            weights[engine] = reweighting_weights(
                positions, base, load_energy_model(model), temperatures[reference], temperatures[engine]
            )
            continue
        sample = read_frames(samples[engine])
        weights[engine] = np.zeros(len(positions))
        write_frames(
            known_paths[engine],
            ca=sample["ca"],
            time_ps=sample["time_ps"],
            traj=sample["traj"],
            tics=TicaModel.load(tica_path).project(sample["ca"]).astype(np.float32),
            energy=sample["energy"],
            attrs={
                **{key: getattr(value, "item", lambda v=value: v)() for key, value in sample.attrs.items()},
                "engine": engine,
            },
        )
        log.info("%s: known answer from its own sample (%d frames)", engine, len(sample["ca"]))
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, **weights)
