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

A perturbed engine started there must first relax to its own equilibrium, and a run that has not finished scores its
sampling speed as much as its equilibrium, which is not what the study calibrates. :func:`engine_starts` starts each
engine of the reference's potential in its own equilibrium instead: ``count`` frames resampled from the whole ground
truth with the weights that reweight it to that equilibrium (:mod:`westbench.calibration.reweighting`, the
predictions' own weights; sampling-importance resampling), equally likely. An engine whose weights are uniform (the
null, a change of dynamics alone) keeps the drawn states. Weighting the 256 drawn states instead left a hot engine's
starts worth 72-122 equally likely ones, and a single run's scores carried that error (docs/calibration.md).

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
from westbench.metrics.weighted import effective_sample_size


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


def engine_starts(states: dict, groundtruth: dict, weights, seed: int) -> dict:
    """Starts at an engine's own equilibrium: ``len(states["positions"])`` ground-truth frames resampled with
    ``weights`` (systematic resampling, seeded), or ``states`` themselves where the weights are uniform.

    Parameters
    ----------
    states : dict
        The replica's drawn basis states (:func:`draw_basis_states`).
    groundtruth : dict
        The frames of the engine's known answer (the ground truth, with its own sample where it has one): ``ca``
        (n_frames, n_beads, 3) nm and ``traj`` (n_frames,) its run.
    weights : array
        The engine's weights over those frames (:class:`~westbench.calibration.known_answer.KnownAnswer`).
    seed : int
        The resampling's seed.

    Returns
    -------
    dict
        ``positions``, ``run``, ``frame`` (a pooled frame index when resampled) as :func:`draw_basis_states`, with
        ``ess`` (the weights' Kish effective sample size over the whole ground truth,
        :func:`~westbench.metrics.weighted.effective_sample_size`) and ``resampled`` (0 or 1).

    Examples
    --------
    >>> ca = np.arange(8.0).reshape(8, 1, 1) * np.ones((1, 1, 3))
    >>> groundtruth = {"ca": ca, "traj": np.arange(8)}
    >>> states = {"positions": ca[:4], "run": np.arange(4), "frame": np.zeros(4, int)}
    >>> same = engine_starts(states, groundtruth, np.full(8, 1 / 8), seed=1)
    >>> bool(same["resampled"]), same["positions"][:, 0, 0].tolist()
    (False, [0.0, 1.0, 2.0, 3.0])
    >>> high = engine_starts(states, groundtruth, np.r_[np.zeros(6), 0.5, 0.5], seed=1)
    >>> bool(high["resampled"]), sorted(high["positions"][:, 0, 0].tolist()), float(high["ess"])
    (True, [6.0, 6.0, 7.0, 7.0], 2.0)
    """
    w = np.asarray(weights, dtype=np.float64)
    ca = np.asarray(groundtruth["ca"])
    if w.shape != (len(ca),) or not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
        raise WestbenchError(
            f"the engine's reweighting weights ({w.shape}) are not a distribution over the ground truth's "
            f"{len(ca)} frames: rerun rule calibration_reweighting"
        )
    w = w / w.sum()
    out = {"ess": effective_sample_size(w)}
    if np.allclose(w, 1.0 / len(w), rtol=1e-9, atol=0):  # the reference's own equilibrium: the draw itself
        return {**states, **out, "resampled": 0}
    count = len(states["positions"])
    rng = np.random.default_rng(seed)
    cumulative = np.cumsum(w)
    cumulative[-1] = 1.0
    picks = np.searchsorted(cumulative, (rng.random() + np.arange(count)) / count, side="right")
    return {
        "positions": np.asarray(ca[picks], dtype=np.float64),
        "run": np.asarray(groundtruth["traj"])[picks].astype(np.int64),
        "frame": picks.astype(np.int64),
        **out,
        "resampled": 1,
    }


def write_engine_starts(
    states_path, groundtruth_path, reweighting_path, engine: str, seed: int, path, sample_path=None
) -> dict:
    """:func:`engine_starts` of ``engine`` from the files the study writes: the replica's basis states, its pooled
    ground truth (:mod:`westbench.io.frames`), its known answers' weights (``.npz``, one weight vector per engine)
    and, for an engine that changes the equilibrium, its own sample (``sample_path``,
    :func:`~westbench.calibration.known_answer.load_known_answer`); written to ``path`` (``.npz``, the WE run's basis
    states)."""
    import logging

    from westbench.calibration.known_answer import load_known_answer
    from westbench.io.atomic import savez
    from westbench.io.frames import read_frames

    with np.load(states_path) as data:
        states = {key: data[key] for key in data.files}
    pooled = load_known_answer(reweighting_path, engine, sample_path).pooled(read_frames(groundtruth_path))
    starts = engine_starts(states, pooled, pooled["weight"], seed)
    savez(path, **starts, resample_seed=seed)
    logging.getLogger(__name__).info(
        "%s: %d starts %s (its equilibrium's weights worth %.0f of the %d frames)",
        engine,
        len(starts["positions"]),
        "resampled from its known answer's frames" if starts["resampled"] else "as drawn (the reference's equilibrium)",
        starts["ess"],
        len(pooled["ca"]),
    )
    return starts
