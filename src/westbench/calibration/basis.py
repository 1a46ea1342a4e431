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
