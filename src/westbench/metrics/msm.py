"""Markov-state-model reweighting and macrostates with deeptime.

- Grid MSM (the published WE benchmark, arXiv:2510.17187): discretize TIC 0/1 on an n x n grid, count transitions at
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

import json
import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse

import westbench.deeptime_without_torch  # noqa: F401  (before deeptime: loads it without torch)

# isort: split
from deeptime.clustering import KMeans, KMeansModel
from deeptime.markov import TransitionCountModel
from deeptime.markov.msm import MaximumLikelihoodMSM

from westbench.config import section_defaults
from westbench.metrics.estimability import NotEstimable

log = logging.getLogger(__name__)

_METRICS = section_defaults("metrics")  # the schema owns the defaults


def grid_states(points: np.ndarray, bins: int, edges: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Flat index of the n x n grid cell of each (n, 2) point (edges default to the points' range)."""
    points = np.asarray(points, dtype=np.float64)[:, :2]
    if edges is None:
        edges = tuple(np.linspace(points[:, d].min(), points[:, d].max(), bins + 1) for d in range(2))
    index = [np.clip(np.searchsorted(edges[d], points[:, d], side="right") - 1, 0, bins - 1) for d in range(2)]
    return index[0] * bins + index[1]


def split_by_traj(states: np.ndarray, traj: np.ndarray) -> list[np.ndarray]:
    """Discrete trajectories, one per continuous piece, in frame order (one stable sort, not a scan per piece)."""
    traj = np.asarray(traj)
    order = np.argsort(traj, kind="stable")
    boundaries = np.flatnonzero(np.diff(traj[order])) + 1
    return np.split(np.asarray(states)[order], boundaries)


def sliding_counts(states: np.ndarray, traj: np.ndarray, lag: int) -> TransitionCountModel:
    """Sliding-window transition counts at ``lag`` within each continuous piece, as deeptime's count model.

    Equivalent to ``TransitionCountEstimator(lag, "sliding")`` on :func:`split_by_traj`,
    counted in one vectorized pass: a WE export has one piece per segment (tens of
    thousands of ten-frame pieces), which deeptime's per-trajectory loop makes slow.
    """
    traj = np.asarray(traj)
    order = np.argsort(traj, kind="stable")
    ordered_states, ordered_traj = np.asarray(states)[order], traj[order]
    same_piece = ordered_traj[lag:] == ordered_traj[:-lag]
    origin, target = ordered_states[:-lag][same_piece], ordered_states[lag:][same_piece]
    n_states = int(np.max(states)) + 1
    matrix = scipy.sparse.coo_matrix((np.ones(len(origin)), (origin, target)), shape=(n_states, n_states)).tocsr()
    return TransitionCountModel(
        matrix,
        counting_mode="sliding",
        lagtime=lag,
        state_histogram=np.bincount(states, minlength=n_states).astype(np.float64),
    )


def stationary_frame_weights(states: np.ndarray, traj: np.ndarray, lag: int, reversible: bool = False) -> np.ndarray:
    """Per-frame weights from the stationary distribution of an MSM over ``states``.

    Raises :class:`~westbench.metrics.estimability.NotEstimable` (with the reason) when the
    frames give no MSM: no transitions at the lag within any continuous piece, or a largest
    connected set of one state (no transition ever returns).
    """
    symbols, states = np.unique(np.asarray(states), return_inverse=True)  # dense labels: empty cells are no states
    counts = sliding_counts(states, traj, lag)
    pieces = len(np.unique(np.asarray(traj)))
    if counts.count_matrix.sum() == 0:
        raise NotEstimable(
            f"no transitions at lag {lag} within any of the {pieces} continuous pieces "
            f"({len(states)} frames): every piece is shorter than the lag"
        )
    largest = counts.submodel_largest()
    if largest.n_states < 2:
        raise NotEstimable(
            f"the MSM's largest connected set is one state of {len(symbols)} occupied: no transition "
            f"between states is ever reversed in {pieces} pieces of {len(states)} frames"
        )
    try:
        msm = MaximumLikelihoodMSM(reversible=reversible, sparse=True).fit(largest).fetch_model()
    except (ValueError, RuntimeError) as exc:  # deeptime: no subset could be fit
        raise NotEstimable(f"deeptime could not fit the MSM over {largest.n_states} states: {exc}") from exc
    pi = np.zeros(len(symbols))
    pi[largest.state_symbols] = msm.stationary_distribution
    weights = pi[states] / np.bincount(states, minlength=len(symbols))[states]
    return weights / weights.sum()


def grid_msm_weights(
    tics: np.ndarray,
    traj: np.ndarray,
    bins: int = _METRICS["msm_bins"],
    lag: int = _METRICS["msm_lag"],
    edges: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """MSM weights of frames from an n x n grid over TIC 0/1 (published n = 80)."""
    return stationary_frame_weights(grid_states(tics, bins, edges), np.asarray(traj), lag)


@dataclass
class MacrostateModel:
    """Cluster centres and the PCCA+ macrostate of each cluster (-1: outside the connected set).

    One model per protein (rule ``macrostates``), saved with :meth:`save` and read with
    :meth:`load`, so every engine's frames are assigned to the same ground-truth macrostates.
    ``why`` says why there are none, when there are none.
    """

    centres: np.ndarray
    cluster_macrostate: np.ndarray
    dim: int
    why: str = ""

    @property
    def n_macrostates(self) -> int:
        """Macrostates found (0 when no MSM could be fitted)."""
        return int(self.cluster_macrostate.max()) + 1 if len(self.cluster_macrostate) else 0

    def assign(self, tics: np.ndarray) -> np.ndarray:
        """Macrostate of every frame: its nearest cluster centre's macrostate."""
        data = np.ascontiguousarray(np.asarray(tics, dtype=np.float64)[:, : self.dim])
        if not len(self.centres):
            return np.full(len(data), -1)
        centres = np.ascontiguousarray(self.centres[:, : data.shape[1]])
        return self.cluster_macrostate[KMeansModel(centres, metric="euclidean").transform(data)]

    def save(self, path: str | Path, **facts) -> None:
        """The model as ``.npz`` (centres, macrostate per cluster, dim) and ``facts`` (seed, settings) in its JSON."""
        np.savez(
            path,
            centres=self.centres,
            cluster_macrostate=self.cluster_macrostate,
            dim=self.dim,
            facts=json.dumps({"why": self.why, **facts}, sort_keys=True),
        )

    @classmethod
    def load(cls, path: str | Path) -> "MacrostateModel":
        with np.load(path) as data:
            facts = json.loads(str(data["facts"]))
            return cls(data["centres"], data["cluster_macrostate"], int(data["dim"]), facts.get("why", ""))


class MacrostateEstimator:
    """KMeans (seeded) on the first ``dim`` TICs, a reversible MSM over the clusters, PCCA+.

    As the published WE benchmark does.

    KMeans is fitted on at most ``max_fit_frames`` evenly strided frames (then every
    frame is assigned): the centres of 100 clusters are well determined by tens of
    thousands of frames, and fitting on all of them would dominate the suite's time.
    Small data sets get at most one cluster per ``min_frames_per_cluster`` frames, so
    that clusters see transitions. When no connected MSM can be fitted (too little
    data) every frame gets macrostate -1 and the reason is logged.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> centre = np.repeat(np.tile([0.0, 3.0], 5), 100)  # one trajectory hopping between two basins
    >>> tics = centre[:, None] + rng.normal(0, 0.1, (1000, 2))
    >>> model = MacrostateEstimator(n_clusters=10, n_macrostates=2, dim=2, seed=1).fit(tics, np.zeros(1000))
    >>> labels = model.assign(tics)
    >>> [len(set(labels[centre == c])) for c in (0.0, 3.0)], bool(labels[0] != labels[100])
    ([1, 1], True)
    """

    def __init__(
        self,
        n_clusters: int = _METRICS["macrostate_clusters"],
        n_macrostates: int = _METRICS["macrostates"],
        lag: int = _METRICS["msm_lag"],
        dim: int = _METRICS["macrostate_dim"],
        seed: int = 0,
        max_fit_frames: int = 50_000,
        max_iter: int = 100,
        min_frames_per_cluster: int = 10,
    ):
        self.n_clusters, self.n_macrostates, self.lag, self.dim = n_clusters, n_macrostates, lag, dim
        self.seed, self.max_fit_frames, self.max_iter = seed, max_fit_frames, max_iter
        self.min_frames_per_cluster = min_frames_per_cluster

    def fit(self, tics: np.ndarray, traj: np.ndarray) -> MacrostateModel:
        data = np.ascontiguousarray(np.asarray(tics, dtype=np.float64)[:, : self.dim])
        if len(np.unique(data, axis=0)) < 2:
            why = f"{len(data)} frames with {len(np.unique(data, axis=0))} distinct TIC values: nothing to cluster"
            log.warning("macrostates: %s", why)
            return MacrostateModel(data[:1], np.full(min(1, len(data)), -1), self.dim, why)
        stride = max(1, -(-len(data) // self.max_fit_frames))
        n_clusters = max(2, min(self.n_clusters, len(data) // self.min_frames_per_cluster, len(data[::stride])))
        clustering = (
            KMeans(n_clusters=n_clusters, fixed_seed=self.seed, max_iter=self.max_iter)
            .fit(data[::stride])
            .fetch_model()
        )
        states = clustering.transform(data)
        centres = np.asarray(clustering.cluster_centers)
        cluster_macrostate = np.full(clustering.n_clusters, -1)
        try:
            largest = sliding_counts(states, traj, self.lag).submodel_largest()
            if largest.n_states < 2:
                raise ValueError(f"the largest connected set of the cluster MSM has {largest.n_states} state")
            msm = MaximumLikelihoodMSM(reversible=True).fit(largest).fetch_model()
            pcca = msm.pcca(n_metastable_sets=min(self.n_macrostates, largest.n_states))
        # deeptime: no connected set to fit, too few states for PCCA+, or (an AssertionError of its PCCA+) a
        # transition matrix whose second eigenvector is constant, as a few frames' deterministic hops give.
        except (ValueError, RuntimeError, AssertionError) as exc:
            why = f"no MSM over {n_clusters} clusters of {len(data)} frames ({exc or type(exc).__name__})"
            log.warning("macrostates: %s; every frame gets -1", why)
            return MacrostateModel(centres, cluster_macrostate, self.dim, why)
        cluster_macrostate[largest.state_symbols] = pcca.assignments
        return MacrostateModel(centres, cluster_macrostate, self.dim)


def macrostates(
    tics: np.ndarray,
    traj: np.ndarray,
    n_clusters: int = _METRICS["macrostate_clusters"],
    n_macrostates: int = _METRICS["macrostates"],
    lag: int = _METRICS["msm_lag"],
    dim: int = _METRICS["macrostate_dim"],
    seed: int = 0,
) -> np.ndarray:
    """Macrostate of every frame of one data set (fitted on it): see :class:`MacrostateEstimator`."""
    estimator = MacrostateEstimator(n_clusters, n_macrostates, lag, dim, seed)
    return estimator.fit(tics, traj).assign(tics)
