"""Known answers of the calibration study: each engine's equilibrium, from the ground truth and its own sample.

The reference energy ``U`` and an engine's potential ``U'`` at its temperature ``T'`` are known at every frame, so
``w ∝ exp(-U'(x) / kT' + U(x) / kT)`` turns the ground truth into the perturbed equilibrium. Alone that rests on
the ground truth's tails where the perturbed equilibrium lies further out (a hotter engine): the few high-energy
frames carry its weight, and the answer's bias changed sign from one ground truth to the next. An engine that
changes the equilibrium therefore gets its own unbiased sample too (``calibration.groundtruth.perturbed_runs``,
:func:`westbench.calibration.groundtruth.run_equilibrium_sample`), and the two samples are combined by MBAR
(pymbar; Shirts & Chodera 2008): the engine's weight of every frame of both, :func:`mbar_weights`.
:mod:`westbench.calibration.table` scores the weighted frames as the suite scores an engine.

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

import contextlib
import io
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import numpy as np

log = logging.getLogger(__name__)

#: The frame columns a known answer's own sample shares with the ground truth (the pooled frames of both).
POOLED_COLUMNS = ("ca", "tics", "weight", "traj", "time_ps", "iteration")


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


@dataclass
class KnownAnswer:
    """One engine's equilibrium as the study knows it: weights of the ground truth's frames (``shared``, aligned with
    its rows) and, for an engine that changes the equilibrium, its own sample's frames with their weights in
    ``weight`` (``own``; together they sum to 1)."""

    shared: np.ndarray
    own: Mapping | None = None

    def pooled(self, groundtruth: Mapping) -> dict:
        """The ground truth's and the own sample's frames as one frame set, weighted (``traj`` kept distinct)."""
        from westbench.io.frames import concatenate

        columns = [k for k in POOLED_COLUMNS if k in groundtruth and k != "weight"]
        parts = [{**{k: np.asarray(groundtruth[k]) for k in columns}, "weight": np.asarray(self.shared)}]
        if self.own is not None and len(self.own["ca"]):
            parts.append({k: np.asarray(self.own[k]) for k in [*columns, "weight"]})
        return concatenate(parts)


def load_known_answer(reweighting_path, engine: str, sample_path=None) -> KnownAnswer:
    """``engine``'s :class:`KnownAnswer` from the files :func:`write_reweighting` writes."""
    from westbench.errors import WestbenchError
    from westbench.io.frames import read_frames

    with np.load(reweighting_path) as data:
        if engine not in data.files:
            raise WestbenchError(f"{reweighting_path} has no weights of {engine!r}: rerun rule calibration_reweighting")
        shared = np.asarray(data[engine], dtype=np.float64)
    return KnownAnswer(shared, None if sample_path is None else read_frames(sample_path))


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
