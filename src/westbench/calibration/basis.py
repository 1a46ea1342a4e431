"""Basis states for the calibration study's WE runs, drawn from the reference's own equilibrium.

A WE run from one structure is biased toward it until its weights relax, and 50 iterations from the native
structure alone did not relax (docs/calibration.md, seed 7: the null's mean TIC 0 still -0.2 where the ground
truth's is 0). The study's ground truth is an equilibrium sample of the reference, so its frames are the
basis states every study engine starts from, equally likely: the null then starts in its equilibrium and must
stay there, and a perturbed engine only has to relax from the reference's equilibrium to its own.

One frame is drawn from each of ``count`` different ground-truth runs (runs are independent; frames of one
run are not), uniformly among its frames. The states' mean stays off the equilibrium's by its standard error
(about 1/sqrt(count) of TIC 0's spread), and WE carries that offset until its weights relax: every run (256)
by default.

A perturbed engine relaxing from the reference's equilibrium to its own is slow for a hot engine (its kept half
of 50 iterations still lay below the prediction in every replica: docs/calibration.md), and that measures its
sampling speed, not the scoring the study calibrates. :func:`engine_starts` gives each engine of the reference's
potential the same states weighted to its own equilibrium, exactly as the predictions reweight the ground truth
(:func:`westbench.calibration.reweighting.reweighting_weights`): WESTPA's basis-state probabilities, so the run
starts in the equilibrium it must keep (the null's weights stay equal).

Examples
--------
>>> import os, tempfile
>>> import numpy as np
>>> from westbench.io.frames import write_frames
>>> folder = tempfile.mkdtemp(); paths = [os.path.join(folder, f"run{i}.h5") for i in range(3)]
>>> for i, path in enumerate(paths):
...     ca = np.full((4, 2, 3), float(i), dtype=np.float32)
...     write_frames(path, ca=ca, weight=np.full(4, 0.25), traj=np.zeros(4), time_ps=np.arange(4.0),
...                  iteration=np.zeros(4))
>>> drawn = draw_basis_states(paths, 2, seed=5)
>>> drawn["positions"].shape, len(set(drawn["run"].tolist()))
((2, 2, 3), 2)
>>> bool(np.all(drawn["positions"][:, 0, 0] == drawn["run"]))
True
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from westbench.errors import WestbenchError
from westbench.io.frames import read_frames


def starts_ess(weights) -> float:
    """Kish's effective sample size of normalized weights: how many equally likely states they are worth.

    >>> starts_ess([0.25, 0.25, 0.25, 0.25]), starts_ess([1.0, 0.0, 0.0])
    (4.0, 1.0)
    """
    w = np.asarray(weights, dtype=np.float64)
    return float(w.sum() ** 2 / np.square(w).sum())


def draw_basis_states(frames_paths: Sequence[str | Path], count: int | None, seed: int) -> dict:
    """``count`` starts, one from each of ``count`` ground-truth runs chosen at random without replacement.

    Parameters
    ----------
    frames_paths : sequence of paths
        The ground truth's runs, one frames file each (:mod:`westbench.io.frames`).
    count : int or None
        Basis states to draw; at most the number of runs (None: one from every run).
    seed : int
        The draw's seed (the same seed and runs give the same states).

    Returns
    -------
    dict
        ``positions`` (count, n_beads, 3) float64 nm, and ``run``, ``frame`` (count,) int64: where each came from.
    """
    count = len(frames_paths) if count is None else count
    if not 1 <= count <= len(frames_paths):
        raise WestbenchError(
            f"calibration.we.basis_states is {count}: it must be between 1 and the ground truth's "
            f"{len(frames_paths)} runs (calibration.groundtruth.runs), one state per run"
        )
    rng = np.random.default_rng(seed)
    runs = np.sort(rng.choice(len(frames_paths), size=count, replace=False))
    positions, frames = [], []
    for run in runs:
        ca = read_frames(frames_paths[run])["ca"]
        frame = int(rng.integers(len(ca)))
        positions.append(np.asarray(ca[frame], dtype=np.float64))
        frames.append(frame)
    return {"positions": np.stack(positions), "run": runs.astype(np.int64), "frame": np.asarray(frames, np.int64)}


def engine_starts(states: dict, reference, engine, reference_temperature_k: float, temperature_k: float) -> dict:
    """The drawn basis states ``states`` (:func:`draw_basis_states`) with the weights that make them an equilibrium
    sample of ``engine`` (an energy model at ``temperature_k``) instead of ``reference``'s.

    Returns ``states`` with ``weight`` (normalized, per state) and ``ess`` (:func:`starts_ess`): the same potential
    at the same temperature gives equal weights.

    Examples
    --------
    >>> import torch
    >>> class Harmonic(torch.nn.Module):
    ...     def __init__(self, k):
    ...         super().__init__(); self.k = k
    ...     def forward(self, x):
    ...         return self.k * (x ** 2).sum((-1, -2))
    >>> states = {"positions": np.array([[[0.0, 0, 0]], [[1.0, 0, 0]]]), "run": np.arange(2), "frame": np.zeros(2)}
    >>> same = engine_starts(states, Harmonic(1.0), Harmonic(1.0), 300.0, 300.0)
    >>> same["weight"].tolist(), float(same["ess"])
    ([0.5, 0.5], 2.0)
    >>> stiffer = engine_starts(states, Harmonic(1.0), Harmonic(2.0), 300.0, 300.0)
    >>> bool(stiffer["weight"][0] > stiffer["weight"][1])  # the stiffer potential favours the centre
    True
    """
    from westbench.calibration.reweighting import reweighting_weights

    weights = reweighting_weights(states["positions"], reference, engine, reference_temperature_k, temperature_k)
    if not np.isfinite(weights).all():
        raise WestbenchError("the engine's energy is not finite at a basis state: its starts cannot be weighted")
    return {**states, "weight": weights, "ess": starts_ess(weights)}


def write_engine_starts(states_path, reference_model, engine_model, temperatures, path) -> dict:
    """:func:`engine_starts` of the basis-states file ``states_path`` for the energy models at the two paths
    (``temperatures``: ``reference`` and ``engine``, K), written to ``path`` (``.npz``, the WE run's basis states)."""
    import logging

    from westbench.cg.model import load_energy_model
    from westbench.io.atomic import savez

    with np.load(states_path) as data:
        states = {key: data[key] for key in data.files}
    weighted = engine_starts(
        states,
        load_energy_model(reference_model),
        load_energy_model(engine_model),
        float(temperatures["reference"]),
        float(temperatures["engine"]),
    )
    savez(path, **weighted)
    logging.getLogger(__name__).info(
        "%d starts weighted to %s's equilibrium: worth %.1f equally likely ones",
        len(weighted["weight"]),
        engine_model,
        weighted["ess"],
    )
    return weighted
