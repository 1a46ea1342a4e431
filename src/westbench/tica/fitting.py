"""Fit TICA with deeptime on C-alpha distances: on any trajectories, and on a protein's ground truth.

Examples
--------
>>> import numpy as np, tempfile, os
>>> rng = np.random.default_rng(0)
>>> slow = np.repeat(rng.choice([-1.0, 1.0], size=100), 20)    # a two-state slow process
>>> data = np.column_stack([slow + 0.3 * rng.normal(size=2000), rng.normal(size=(2000, 3))])
>>> model = TicaModel.from_deeptime(fit_tica([data], lag=5, dim=2), protein="toy", feature="test",
...                                 n_features=4, lag_frames=5, lag_ps=5.0)
>>> bool(abs(np.corrcoef(model.transform(data)[:, 0], slow)[0, 1]) > 0.9)
True
>>> path = os.path.join(tempfile.mkdtemp(), "tica")
>>> model.save(path)
>>> TicaModel.load(path, protein="toy").lag_frames
5
>>> TicaModel.load(path + ".json", protein="toy").dim
2
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

import westbench.deeptime_without_torch  # noqa: F401  (before deeptime: loads it without torch)

# isort: split
from deeptime.decomposition import TICA

from westbench.errors import WestbenchError
from westbench.tica.model import FEATURE_CA_DISTANCES, TicaModel


def fit_tica(trajectories: Sequence[np.ndarray], lag: int, dim: int | None = None):
    """Fit deeptime's TICA on several trajectories; lagged pairs never cross a trajectory boundary.

    Trajectories shorter than ``lag + 1`` frames contribute no pairs and are skipped.
    """
    usable = [np.asarray(t, dtype=np.float64) for t in trajectories if len(t) > lag]
    if not usable:
        raise WestbenchError(f"TICA lag {lag} frames is longer than every trajectory: lower the lag or run longer")
    return TICA(lagtime=lag, dim=dim).fit(usable).fetch_model()


def fit_groundtruth(frames_paths: Sequence[str | Path], protein: str, lag_frames: int, dim: int):
    """Fit the protein's TICA on all its ground-truth runs and project every frame.

    Returns
    -------
    model : TicaModel
    frames : dict
        All runs joined in the frames contract (``traj`` = run), with ``tics`` filled.
    """
    from westbench.features import pairwise_distances
    from westbench.frames import concatenate, read_frames

    runs = [read_frames(p) for p in frames_paths]
    for index, run in enumerate(runs):
        run["traj"] = np.full(len(run), index)
    features = [pairwise_distances(run["ca"]) for run in runs]
    intervals = {round(float(np.median(np.diff(r["time_ps"]))), 9) for r in runs if len(r) > 1}
    if len(intervals) > 1:
        raise WestbenchError(
            f"ground-truth runs of '{protein}' were saved at different intervals {sorted(intervals)} ps"
        )
    interval = intervals.pop() if intervals else float("nan")
    n_residues = runs[0]["ca"].shape[1]
    fitted = fit_tica(features, lag=lag_frames, dim=dim)
    model = TicaModel.from_deeptime(
        fitted,
        protein=protein,
        feature=FEATURE_CA_DISTANCES,
        n_features=features[0].shape[1],
        lag_frames=lag_frames,
        lag_ps=lag_frames * interval,
        n_residues=n_residues,
        trajectories=len(runs),
        frames=int(sum(map(len, runs))),
    )
    frames = concatenate(runs)
    frames["tics"] = model.transform(np.concatenate(features)).astype(np.float32)
    frames["weight"] = np.full(len(frames["ca"]), 1.0 / len(frames["ca"]))
    return model, frames
