"""Markov-state-model reweighting with deeptime.

- Grid MSM (the published WE benchmark, arXiv:2510.17187): discretize TIC 0/1 on an n x n grid fixed from the
  ground truth's range (:func:`msm_grid`, with overflow states around it, each one span of the grid wide:
  :func:`grid_states`), count transitions at
  a lag within each continuous piece of trajectory (``traj``, in time order), row-normalize
  (maximum-likelihood, non-reversible), take the stationary distribution; each
  frame's weight is its state's stationary probability shared among the state's
  frames. Frames outside the largest connected set get weight 0, and their share is reported
  (:class:`MsmWeights`).
- Macrostates (:mod:`westbench.metrics.metastable`): KMeans (seeded) on the first TICs, an MSM over the
  clusters, PCCA+ into a few metastable sets.

Examples
--------
>>> import numpy as np
>>> x = np.repeat([[0.0, 0.0], [1.0, 1.0]], 2, axis=0)[[0, 2, 1, 3, 0, 2]]
>>> w = grid_msm_weights(x, traj=np.zeros(6, dtype=int), grid=msm_grid(x, bins=2), lag=1)
>>> round(float(w.sum()), 6)
1.0
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
import scipy.sparse

import westbench.runtime.deeptime_without_torch  # noqa: F401  (before deeptime: loads it without torch)

# isort: split
from deeptime.markov import TransitionCountModel
from deeptime.markov.msm import MaximumLikelihoodMSM

from westbench.config import section_defaults
from westbench.metrics.binning import ReferenceBins, ReferenceGrid2D
from westbench.metrics.estimability import NotEstimable

log = logging.getLogger(__name__)

_METRICS = section_defaults("metrics")  # the schema owns the defaults


#: Overflow states reach out at most this many spans of the padded grid (larger values are clipped: labels stay int64).
FARTHEST_SPANS = 10**6


def _axis_states(values: np.ndarray, axis: ReferenceBins) -> np.ndarray:
    """Per axis: the grid's own bins (:meth:`ReferenceBins.index`: 1..bins inside), and outside, one state per span
    of the grid outward: 0 and bins + 1 within one span of the grid, -1 and bins + 2 within two; NaN the farthest."""
    low, high = float(axis.edges[0]), float(axis.edges[-1])
    span, last = high - low, len(axis.edges) - 1
    below = 1 - np.ceil(np.clip((low - values) / span, 0, FARTHEST_SPANS))
    above = last + np.ceil(np.clip((values - high) / span, 0, FARTHEST_SPANS))
    states = np.where(values < low, below, np.where(values > high, above, axis.index(values)))
    return np.where(np.isnan(values), last + FARTHEST_SPANS, states).astype(np.int64)


def grid_states(points: np.ndarray, grid: ReferenceGrid2D) -> np.ndarray:
    """MSM state of each (n, 2) point: its cell of the ground truth's grid, or, outside the grid, a region one span
    of the grid wide (int64 labels, possibly negative; dense labels are the caller's).

    An MSM state's frames share its stationary probability, so a state must be a bounded region: the grid's
    overflow cells reach to infinity, and an exploded walker's single frame at TIC 50 would share the weight of a
    connected state with frames just outside the ground truth's range, taking their weight (issue 51). Within one
    span of the grid the states are the grid's overflow cells, as before; farther out each span is its own state,
    where a walker that never comes back is outside the connected set.

    Examples
    --------
    >>> import numpy as np
    >>> grid = msm_grid(np.array([[0.0, 0.0], [1.0, 1.0]]), bins=2)
    >>> states = grid_states(np.array([[0.2, 0.2], [1.5, 0.2], [1.9, 0.2], [50.0, 0.2]]), grid)
    >>> bool(states[1] == states[2]), bool(states[3] != states[2])  # one overflow state near, its own far away
    (True, True)
    """
    points = np.asarray(points, dtype=np.float64)[:, :2]
    first, second = (_axis_states(points[:, d], grid.axes[d]) for d in range(2))
    offset = FARTHEST_SPANS + 1  # every label of an axis shifted to >= 0, then paired into one int64
    columns = grid.axes[1].n_cells + 2 * offset
    return (first + offset) * columns + (second + offset)


def msm_grid(groundtruth_tics: np.ndarray, bins: int = _METRICS["msm_bins"]) -> ReferenceGrid2D:
    """The MSM's ``bins`` x ``bins`` grid over the ground truth's TIC 0/1 range (padded), with overflow cells.

    Fixed from the ground truth, like every grid of the suite: a model frame far outside it lands in an
    overflow cell and cannot stretch the grid over the frames that matter (a grid over the model's own range
    did, and one exploded walker then merged every real frame into a few cells).
    """
    return ReferenceGrid2D.from_reference(np.asarray(groundtruth_tics, dtype=np.float64)[:, :2], bins)


def piece_order(traj: np.ndarray, time: np.ndarray | None = None) -> np.ndarray:
    """Frame order within continuous pieces: by piece, then by time when given (else by row, stably)."""
    traj = np.asarray(traj)
    if time is None:
        return np.argsort(traj, kind="stable")
    return np.lexsort((np.asarray(time, dtype=np.float64), traj))


def split_by_traj(states: np.ndarray, traj: np.ndarray, time: np.ndarray | None = None) -> list[np.ndarray]:
    """Discrete trajectories, one per continuous piece, in time order (one sort, not a scan per piece)."""
    traj = np.asarray(traj)
    order = piece_order(traj, time)
    boundaries = np.flatnonzero(np.diff(traj[order])) + 1
    return np.split(np.asarray(states)[order], boundaries)


def sliding_counts(
    states: np.ndarray, traj: np.ndarray, lag: int, time: np.ndarray | None = None
) -> TransitionCountModel:
    """Sliding-window transition counts at ``lag`` within each continuous piece, as deeptime's count model.

    Equivalent to ``TransitionCountEstimator(lag, "sliding")`` on :func:`split_by_traj`,
    counted in one vectorized pass: a WE export has one piece per segment (tens of
    thousands of ten-frame pieces), which deeptime's per-trajectory loop makes slow.
    Frames are taken in time order within a piece when ``time`` is given, so the counts do not
    depend on the order of rows in a file.
    """
    traj = np.asarray(traj)
    order = piece_order(traj, time)
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


@dataclass
class MsmWeights:
    """Frame weights from an MSM's stationary distribution, with what they rest on.

    Attributes
    ----------
    weights : ndarray
        Per frame, normalized; 0 for frames outside the largest connected set.
    outside_share : float
        Share of the frames (counted with their multiplicity) outside the largest connected set: data the
        weighting leaves out.
    states, connected_states : int
        Occupied cells, and those in the largest connected set.
    """

    weights: np.ndarray
    outside_share: float
    states: int
    connected_states: int


def stationary_weights(
    states: np.ndarray,
    traj: np.ndarray,
    lag: int,
    reversible: bool = False,
    time: np.ndarray | None = None,
    multiplicity: np.ndarray | None = None,
) -> MsmWeights:
    """Per-frame weights from the stationary distribution of an MSM over ``states``.

    A state's stationary probability is shared among its frames in proportion to their
    ``multiplicity`` (how many identical rows a frame stands for; 1 each by default).
    Raises :class:`~westbench.metrics.estimability.NotEstimable` (with the reason) when the
    frames give no MSM: no transitions at the lag within any continuous piece, or a largest
    connected set of one state (no transition ever returns).
    """
    symbols, states = np.unique(np.asarray(states), return_inverse=True)  # dense labels: empty cells are no states
    multiplicity = np.ones(len(states)) if multiplicity is None else np.asarray(multiplicity, dtype=np.float64)
    counts = sliding_counts(states, traj, lag, time)
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
    per_state = np.bincount(states, multiplicity, minlength=len(symbols))
    weights = pi[states] * multiplicity / per_state[states]
    inside = np.isin(states, largest.state_symbols)
    return MsmWeights(
        weights / weights.sum(),
        float(multiplicity[~inside].sum() / multiplicity.sum()),
        len(symbols),
        int(largest.n_states),
    )


def stationary_frame_weights(states: np.ndarray, traj: np.ndarray, lag: int, reversible: bool = False) -> np.ndarray:
    """The weights of :func:`stationary_weights` alone."""
    return stationary_weights(states, traj, lag, reversible).weights


def grid_msm(
    tics: np.ndarray,
    traj: np.ndarray,
    grid: ReferenceGrid2D,
    lag: int = _METRICS["msm_lag"],
    time: np.ndarray | None = None,
    multiplicity: np.ndarray | None = None,
) -> MsmWeights:
    """MSM weights of frames from the cells of the ground truth's TIC 0/1 grid (:func:`msm_grid`; published 80 x 80)."""
    return stationary_weights(grid_states(tics, grid), np.asarray(traj), lag, time=time, multiplicity=multiplicity)


def grid_msm_weights(
    tics: np.ndarray,
    traj: np.ndarray,
    grid: ReferenceGrid2D,
    lag: int = _METRICS["msm_lag"],
    time: np.ndarray | None = None,
) -> np.ndarray:
    """The frame weights of :func:`grid_msm`."""
    return grid_msm(tics, traj, grid, lag, time).weights
