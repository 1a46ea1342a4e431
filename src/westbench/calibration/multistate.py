"""Known answers from two samples: the ground truth and a perturbed engine's own, combined by MBAR (pymbar).

The ground truth samples the reference at its temperature; an engine that changes the equilibrium has its own
unbiased sample too (:func:`westbench.calibration.groundtruth.run_equilibrium_sample`). MBAR (Shirts & Chodera 2008)
solves both states' free energies from every frame's energy under each and gives every frame of both samples its
weight in the engine's equilibrium: where the perturbed equilibrium lies in the ground truth's tails, its own sample
carries it (:class:`westbench.calibration.known_answer.KnownAnswer`).

Examples
--------
>>> import numpy as np
>>> from westbench.cg.internal_coordinates import kt
>>> rng = np.random.default_rng(0)
>>> x, own = rng.normal(0, 1, 2000), rng.normal(0, 2, 2000)  # U = kT x^2 / 2 at 300 K and at 4 x 300 K
>>> u, u_own = kt(300.0) * x ** 2 / 2, kt(300.0) * own ** 2 / 2
>>> shared, mine = known_answer_weights((u, u), (u_own, u_own), 300.0, 1200.0)
>>> round(float(shared @ x ** 2 + mine @ own ** 2), 1)  # the hot well's variance: 4
4.0
"""

from __future__ import annotations

import contextlib
import io
import logging
from pathlib import Path
from typing import Mapping

import numpy as np

from westbench.calibration.reweighting import weights_from_energies

log = logging.getLogger(__name__)


def mbar_weights(reduced_energies: np.ndarray, counts) -> np.ndarray:
    """Every state's MBAR weight of every pooled frame, (n_states, n_frames), each row summing to 1.

    ``reduced_energies``: (n_states, n_frames), every frame's energy under each state over that state's kT;
    ``counts``: how many of the frames (in order) each state sampled. pymbar solves the states' free energies.

    >>> u = np.zeros((2, 4))  # two identical states: every frame counts the same in both
    >>> mbar_weights(u, [2, 2]).round(3).tolist()
    [[0.25, 0.25, 0.25, 0.25], [0.25, 0.25, 0.25, 0.25]]
    """
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        from pymbar import MBAR  # its import prints a banner about an optional accelerator

    u = np.asarray(reduced_energies, dtype=np.float64)
    u = u - u.min(axis=1, keepdims=True)  # a constant per state: free energies absorb it
    return np.asarray(MBAR(u, np.asarray(counts, dtype=int), verbose=False).weights(), dtype=np.float64).T


def known_answer_weights(
    groundtruth_energies: tuple[np.ndarray, np.ndarray],
    sample_energies: tuple[np.ndarray, np.ndarray] | None,
    temperature_k: float,
    perturbed_temperature_k: float,
) -> tuple[np.ndarray, np.ndarray]:
    """An engine's weights of the ground truth's frames and of its own sample's (together summing to 1).

    ``groundtruth_energies``, ``sample_energies``: (reference energy, engine energy) of each sample's frames
    (kJ/mol); without a sample of its own, the ground truth reweighted (:func:`weights_from_energies`) and no own
    weights. With one, both samples' MBAR weights of the engine's state (:func:`mbar_weights`).
    """
    reference, perturbed = (np.asarray(e, dtype=np.float64) for e in groundtruth_energies)
    if sample_energies is None:
        return weights_from_energies(reference, perturbed, temperature_k, perturbed_temperature_k), np.zeros(0)
    from westbench.cg.internal_coordinates import kt

    own_reference, own_perturbed = (np.asarray(e, dtype=np.float64) for e in sample_energies)
    reduced = np.vstack(
        [
            np.concatenate([reference, own_reference]) / kt(temperature_k),
            np.concatenate([perturbed, own_perturbed]) / kt(perturbed_temperature_k),
        ]
    )
    weights = mbar_weights(reduced, [len(reference), len(own_reference)])[1]
    return weights[: len(reference)], weights[len(reference) :]


def write_reweighting(
    groundtruth_frames,
    models: Mapping[str, str | Path],
    temperatures: Mapping[str, float],
    reference: str,
    path,
    samples: Mapping[str, str | Path] | None = None,
    tica_path=None,
    known_paths: Mapping[str, str | Path] | None = None,
) -> dict:
    """Every engine of ``models``' known answer (:func:`known_answer_weights`): its weights of the ground truth's
    frames, one vector per engine in ``path`` (``.npz``; the null's uniform), and for each engine of ``samples``
    (its own sample, :func:`~westbench.calibration.groundtruth.run_equilibrium_sample`) that sample projected on
    the study's TICA (``tica_path``) with its weights, a frames file at ``known_paths[engine]``. Returns each
    engine's share of weight on its own sample."""
    import torch

    from westbench.cg.model import load_energy_model
    from westbench.io.frames import read_frames, write_frames
    from westbench.tica.model import TicaModel

    samples, known_paths = dict(samples or {}), dict(known_paths or {})
    positions = read_frames(groundtruth_frames)["ca"]
    base = load_energy_model(models[reference])

    def energies(model, x):
        with torch.no_grad():
            return model(torch.as_tensor(np.asarray(x), dtype=torch.float64)).double().numpy()

    base_energy = energies(base, positions)
    weights, own_share = {}, {}
    for engine, model_path in models.items():
        model = load_energy_model(model_path)
        sample = read_frames(samples[engine]) if engine in samples else None
        own_energies = None if sample is None else (energies(base, sample["ca"]), energies(model, sample["ca"]))
        shared, own = known_answer_weights(
            (base_energy, energies(model, positions)), own_energies, temperatures[reference], temperatures[engine]
        )
        weights[engine], own_share[engine] = shared, float(own.sum())
        if sample is not None:
            write_frames(
                known_paths[engine],
                ca=sample["ca"],
                time_ps=sample["time_ps"],
                weight=own,
                traj=sample["traj"],
                tics=TicaModel.load(tica_path).project(sample["ca"]).astype(np.float32),
                energy=sample["energy"],
                attrs={
                    **{key: getattr(value, "item", lambda v=value: v)() for key, value in sample.attrs.items()},
                    "engine": engine,
                    "weights": "MBAR, with the ground truth",
                },
            )
            log.info(
                "%s: known answer from the ground truth and its own sample (%.0f %% of the weight)",
                engine,
                100 * own.sum(),
            )
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, **weights)
    return own_share
