"""Markov-state-model reweighting and macrostates with deeptime.

- Grid MSM (science.md): discretize TIC 0/1 on an n x n grid, count transitions at
  a lag within each continuous piece of trajectory (``traj``), row-normalize
  (maximum-likelihood, non-reversible), take the stationary distribution; each
  frame's weight is its state's stationary probability shared among the state's
  frames. Frames outside the largest connected set get weight 0.
- Macrostates: KMeans (seeded) on the first TICs, an MSM over the clusters,
  PCCA+ into a few metastable sets.

Examples
--------
>>> import numpy as np
>>> x = np.repeat([[0.0, 0.0], [1.0, 1.0]], 2, axis=0)[[0, 2, 1, 3, 0, 2]]
>>> w = grid_msm_weights(x, traj=np.zeros(6, dtype=int), bins=2, lag=1)
>>> round(float(w.sum()), 6)
1.0
"""

from __future__ import annotations

import numpy as np
from deeptime.clustering import KMeans
from deeptime.markov import TransitionCountEstimator
from deeptime.markov.msm import MaximumLikelihoodMSM


def grid_states(points: np.ndarray, bins: int, edges: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Flat index of the n x n grid cell of each (n, 2) point (edges default to the points' range)."""
    points = np.asarray(points, dtype=np.float64)[:, :2]
    if edges is None:
        edges = tuple(np.linspace(points[:, d].min(), points[:, d].max(), bins + 1) for d in range(2))
    index = [np.clip(np.searchsorted(edges[d], points[:, d], side="right") - 1, 0, bins - 1) for d in range(2)]
    return index[0] * bins + index[1]


def split_by_traj(states: np.ndarray, traj: np.ndarray) -> list[np.ndarray]:
    """Discrete trajectories, one per continuous piece, in frame order."""
    return [states[traj == t] for t in np.unique(traj)]


def stationary_frame_weights(states: np.ndarray, traj: np.ndarray, lag: int, reversible: bool = False) -> np.ndarray:
    """Per-frame weights from the stationary distribution of an MSM over ``states``."""
    counts = TransitionCountEstimator(lagtime=lag, count_mode="sliding").fit(split_by_traj(states, traj)).fetch_model()
    largest = counts.submodel_largest()
    msm = MaximumLikelihoodMSM(reversible=reversible).fit(largest).fetch_model()
    pi = dict(zip(largest.state_symbols.tolist(), msm.stationary_distribution))
    weights = np.zeros(len(states))
    for state, probability in pi.items():
        members = states == state
        weights[members] = probability / members.sum()
    return weights / weights.sum()


def grid_msm_weights(tics: np.ndarray, traj: np.ndarray, bins: int = 80, lag: int = 1,
                     edges: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """MSM weights of frames from an n x n grid over TIC 0/1 (published n = 80)."""
    return stationary_frame_weights(grid_states(tics, bins, edges), np.asarray(traj), lag)


def macrostates(tics: np.ndarray, traj: np.ndarray, n_clusters: int = 100, n_macrostates: int = 5, lag: int = 1,
                dim: int = 10, seed: int = 0) -> np.ndarray:
    """Macrostate of every frame: KMeans on the first ``dim`` TICs, MSM, PCCA+ (-1: outside the connected set)."""
    data = np.ascontiguousarray(np.asarray(tics, dtype=np.float64)[:, :dim])
    clustering = KMeans(n_clusters=min(n_clusters, len(data)), fixed_seed=seed, max_iter=200).fit(data).fetch_model()
    states = clustering.transform(data)
    counts = TransitionCountEstimator(lagtime=lag, count_mode="sliding").fit(split_by_traj(states, np.asarray(traj))).fetch_model()
    largest = counts.submodel_largest()
    msm = MaximumLikelihoodMSM(reversible=True).fit(largest).fetch_model()
    pcca = msm.pcca(n_metastable_sets=min(n_macrostates, largest.n_states))
    lookup = dict(zip(largest.state_symbols.tolist(), pcca.assignments))
    return np.array([lookup.get(int(s), -1) for s in states])
