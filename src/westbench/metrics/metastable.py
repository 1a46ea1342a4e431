"""Macrostates of a protein's ground truth with deeptime: KMeans (seeded) on the first TICs, a reversible MSM over
the clusters, PCCA+ into a few metastable sets (as the published WE benchmark does); one model per protein, so
every engine's frames are assigned to the same macrostates.

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> centre = np.repeat(np.tile([0.0, 3.0], 5), 100)  # one trajectory hopping between two basins
>>> tics = centre[:, None] + rng.normal(0, 0.1, (1000, 2))
>>> model = MacrostateEstimator(n_clusters=10, n_macrostates=2, dim=2, seed=1).fit(tics, np.zeros(1000))
>>> model.assign(np.array([[50.0, 0.0]])).tolist() == [OUTSIDE]  # far beyond the ground truth's range
True
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import westbench.runtime.deeptime_without_torch  # noqa: F401  (before deeptime: loads it without torch)

# isort: split
from deeptime.clustering import KMeans, KMeansModel
from deeptime.markov.msm import MaximumLikelihoodMSM

from westbench.config import section_defaults
from westbench.metrics.binning import PAD
from westbench.metrics.msm import sliding_counts

log = logging.getLogger(__name__)

_METRICS = section_defaults("metrics")  # the schema owns the defaults


#: The macrostate of a frame in a cluster outside the MSM's connected set.
UNASSIGNED = -1
#: The macrostate of a frame outside the ground truth's range (padded) in any of the model's TICs: a place the
#: ground truth never was, never the nearest macrostate of it.
OUTSIDE = -2


@dataclass
class MacrostateModel:
    """Cluster centres and the PCCA+ macrostate of each cluster (-1: outside the connected set).

    One model per protein (rule ``macrostates``), saved with :meth:`save` and read with
    :meth:`load`, so every engine's frames are assigned to the same ground-truth macrostates.
    ``why`` says why there are none, when there are none. ``bounds`` (2, dim): the ground truth's
    range per TIC, padded as the suite's grids are; a frame outside it is :data:`OUTSIDE`.
    """

    centres: np.ndarray
    cluster_macrostate: np.ndarray
    dim: int
    why: str = ""
    bounds: np.ndarray | None = None

    @property
    def n_macrostates(self) -> int:
        """Macrostates found (0 when no MSM could be fitted)."""
        return int(self.cluster_macrostate.max()) + 1 if len(self.cluster_macrostate) else 0

    def assign(self, tics: np.ndarray) -> np.ndarray:
        """Macrostate of every frame: its nearest cluster centre's macrostate, :data:`OUTSIDE` beyond the bounds."""
        data = np.ascontiguousarray(np.asarray(tics, dtype=np.float64)[:, : self.dim])
        if not len(self.centres):
            return np.full(len(data), UNASSIGNED)
        centres = np.ascontiguousarray(self.centres[:, : data.shape[1]])
        labels = self.cluster_macrostate[KMeansModel(centres, metric="euclidean").transform(data)]
        if self.bounds is not None and len(data):
            low, high = self.bounds[0, : data.shape[1]], self.bounds[1, : data.shape[1]]
            labels = np.where(np.any((data < low) | (data > high), axis=1), OUTSIDE, labels)
        return labels

    def save(self, path: str | Path, **facts) -> None:
        """The model as ``.npz`` (centres, macrostate per cluster, dim, bounds) and ``facts`` (seed, settings) in
        its JSON."""
        np.savez(
            path,
            centres=self.centres,
            cluster_macrostate=self.cluster_macrostate,
            dim=self.dim,
            facts=json.dumps({"why": self.why, **facts}, sort_keys=True),
            **({} if self.bounds is None else {"bounds": self.bounds}),
        )

    @classmethod
    def load(cls, path: str | Path) -> "MacrostateModel":
        with np.load(path) as data:
            facts = json.loads(str(data["facts"]))
            bounds = data["bounds"] if "bounds" in data else None
            return cls(data["centres"], data["cluster_macrostate"], int(data["dim"]), facts.get("why", ""), bounds)


def padded_bounds(data: np.ndarray) -> np.ndarray:
    """(2, dim) low and high of each column, padded by :data:`westbench.metrics.binning.PAD` of its range."""
    low, high = data.min(axis=0), data.max(axis=0)
    margin = np.where(high > low, PAD * (high - low), np.maximum(np.abs(low) * 1e-6, 1e-9))
    return np.vstack([low - margin, high + margin])


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

    def fit(self, tics: np.ndarray, traj: np.ndarray, time: np.ndarray | None = None) -> MacrostateModel:
        """The ground truth's macrostates (transitions counted in ``time`` order within each piece when given)."""
        data = np.ascontiguousarray(np.asarray(tics, dtype=np.float64)[:, : self.dim])
        if len(np.unique(data, axis=0)) < 2:
            why = f"{len(data)} frames with {len(np.unique(data, axis=0))} distinct TIC values: nothing to cluster"
            log.warning("macrostates: %s", why)
            return MacrostateModel(data[:1], np.full(min(1, len(data)), UNASSIGNED), self.dim, why)
        stride = max(1, -(-len(data) // self.max_fit_frames))
        n_clusters = max(2, min(self.n_clusters, len(data) // self.min_frames_per_cluster, len(data[::stride])))
        clustering = (
            KMeans(n_clusters=n_clusters, fixed_seed=self.seed, max_iter=self.max_iter)
            .fit(data[::stride])
            .fetch_model()
        )
        states = clustering.transform(data)
        centres = np.asarray(clustering.cluster_centers)
        cluster_macrostate = np.full(clustering.n_clusters, UNASSIGNED)
        try:
            largest = sliding_counts(states, traj, self.lag, time).submodel_largest()
            if largest.n_states < 2:
                raise ValueError(f"the largest connected set of the cluster MSM has {largest.n_states} state")
            msm = MaximumLikelihoodMSM(reversible=True).fit(largest).fetch_model()
            pcca = msm.pcca(n_metastable_sets=min(self.n_macrostates, largest.n_states))
        # deeptime: no connected set to fit, too few states for PCCA+, or (an AssertionError of its PCCA+) a
        # transition matrix whose second eigenvector is constant, as a few frames' deterministic hops give.
        except (ValueError, RuntimeError, AssertionError) as exc:
            why = f"no MSM over {n_clusters} clusters of {len(data)} frames ({exc or type(exc).__name__})"
            log.warning("macrostates: %s; every frame gets -1", why)
            return MacrostateModel(centres, cluster_macrostate, self.dim, why, padded_bounds(data))
        cluster_macrostate[largest.state_symbols] = pcca.assignments
        return MacrostateModel(centres, cluster_macrostate, self.dim, bounds=padded_bounds(data))


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
