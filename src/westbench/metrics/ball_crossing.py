"""The smallest ball about each query point that holds a target mass, for any unit multiplicities.

:func:`crossing` reads the merged candidate lists of :mod:`westbench.metrics.neighbour_lists` with a batch of
replicates' unit multiplicities: the first :data:`WIDTHS` [0] candidates for every (replicate, query point) pair,
then, only for the pairs they leave short, each unit's listed weight (a ball the lists cannot fill), the few units
a replicate holds, or longer reads. Every path gives the ball a scan of the whole merged list gives
(``tests/unit/metrics/test_ball_crossing.py``).

Examples
--------
>>> import numpy as np
>>> from westbench.metrics.neighbour_lists import Side
>>> side = Side.build(np.array([0.0, 1.0, 2.0, 3.0]), np.ones(4), np.array([0, 0, 1, 1]), n_units=2)
>>> cands = side.candidates(np.array([[0.0]]), count=2, eps=1e-9)
>>> radius, mass, short, _ = crossing(cands, np.array([[1.0, 1.0], [0.0, 1.0]]), np.array([2.0, 2.0]), 1e-9)
>>> radius.tolist(), mass.tolist()  # two points' mass: both units, then unit 1 alone
([[1.0], [3.0]], [[2.0], [2.0]])
"""

from __future__ import annotations

import numpy as np

from westbench.metrics.neighbour_lists import Candidates

#: Candidates a replicate reads after merging the units' lists: the first of these, then the second where they
#: fall short, then all.
WIDTHS = (128, 384)
#: (pair, candidate) cells a long list's crossing reads at once (memory: 8 bytes each, a few arrays).
PAIRS = 1 << 21
#: A replicate whose units' lists fill at most 1 / FEW_UNITS of the merged list reads theirs alone.
FEW_UNITS = 4
#: Relative rounding allowed when a ball's mass is compared with its target.
ROUNDING = 1e-9


def crossing(cands: Candidates, multiplicities: np.ndarray, target: np.ndarray, eps: float, check: bool = False):
    """Per replicate and query point: the radius of the smallest ball holding ``target`` mass (at least ``eps``);
    the mass it holds (at least ``target``: a heavy point at its edge counts whole; the atom's mass where the ball
    is within ``eps``; what the lists hold where they hold less); where the lists may have fallen short (only with
    ``check``: a present unit has more mass beyond its listed locations inside the ball, or the lists never reach
    the target); and the atom's mass (within ``eps``; None where no ball is that small:
    :meth:`VariableKL._ball` computes it where it needs it).

    ``multiplicities``: (batch, n_units); ``target``: (batch,) the ball's mass (:meth:`Side.ball_mass`).
    """
    batch = len(multiplicities)
    q, c = cands.distance.shape
    target = np.broadcast_to(np.asarray(target, dtype=np.float64)[:, None], (batch, q))
    if c == 0 or q == 0:
        nothing = np.zeros((batch, q))
        return np.full((batch, q), np.inf), nothing, np.ones((batch, q), dtype=bool), nothing
    # The first candidates of every (replicate, query point), laid out candidate-first: (W, Q, B) sums fast.
    width = min(WIDTHS[0], c)
    w = multiplicities.T[cands.unit(width=width).T] * cands.weight(width=width).T[:, :, None]
    cumulative = np.cumsum(w, axis=0)
    reached = cumulative >= target.T * (1 - ROUNDING)
    ok = reached[-1]
    position = np.argmax(reached, axis=0)  # (Q, B)
    radius = np.take_along_axis(cands.distance[:, :width], position, axis=1).T.copy()
    held = np.take_along_axis(cumulative, position[None], 0)[0]  # the ball's mass: at least the goal
    mass = np.where(ok, held, cumulative[-1]).T.copy()
    ok = ok.T.copy()
    del w, cumulative, reached
    if not ok.all():
        state = (radius, mass, ok, ~ok)  # pending: the (replicate, query) pairs that need more candidates
        _unreachable(cands, multiplicities, target, state)
        if cands.positions is not None:
            _few_units(cands, multiplicities, target, state)
        _longer_lists(cands, multiplicities, target, state)
    inside = radius <= eps
    atom = None  # computed where needed: (batch, Q) of the units' weight within eps, with multiplicities
    if inside.any():
        atom = multiplicities @ cands.atom.T
        mass = np.where(inside, atom, mass)  # an atom: its mass (at least the target)
    short = ~ok
    if check:
        present = multiplicities > 0
        short = short | np.any(present[:, None, :] & (cands.reach[None, :, :] < radius[..., None]), axis=-1)
    return np.maximum(radius, eps), mass, short, atom


def _first(distance: np.ndarray, w: np.ndarray, goal: np.ndarray):
    """Along the last axis of sorted candidates (``distance``, weights ``w``): the distance and mass where the
    cumulative mass first reaches ``goal``, and whether it does (else all the mass, out to the farthest location
    with mass)."""
    cumulative = np.cumsum(w, axis=-1)
    reached = cumulative >= goal[..., None] * (1 - ROUNDING)
    ok = reached[..., -1]
    position = np.argmax(reached, axis=-1)
    d = np.take_along_axis(distance, position[..., None], -1)[..., 0]
    held = np.take_along_axis(cumulative, position[..., None], -1)[..., 0]  # the ball's mass: at least the goal
    mass = np.where(ok, held, cumulative[..., -1])
    if not ok.all():  # the farthest listed location with mass
        last = np.where(w > 0, np.arange(w.shape[-1]), -1).max(axis=-1)
        far = np.take_along_axis(distance, np.maximum(last, 0)[..., None], -1)[..., 0]
        d = np.where(ok, d, np.where(last >= 0, far, np.inf))
    return d, mass, ok


def _unreachable(cands: Candidates, multiplicities, target, state) -> None:
    """:func:`crossing`'s pending pairs whose whole lists hold less than the target: the ball is all they hold, out
    to their farthest location with mass, settled by each unit's listed weight and farthest distance without
    reading the lists. Fills ``state`` (radius, mass, ok, pending) in place; they stay not ``ok``."""
    radius, mass, _, pending = state
    b, i = np.nonzero(pending)
    present = multiplicities[b]
    total = np.einsum("pu,pu->p", present, cands.listed[i])
    far = np.max(np.where(present > 0, cands.farthest[i], -np.inf), axis=1, initial=-np.inf)
    unreached = total < target[b, i] * (1 - ROUNDING)
    b, i, far = b[unreached], i[unreached], far[unreached]
    radius[b, i], mass[b, i] = np.where(far > -np.inf, far, np.inf), total[unreached]
    pending[b, i] = False


def _longer_lists(cands: Candidates, multiplicities, target, state) -> None:
    """:func:`crossing`'s pending pairs read further: the first :data:`WIDTHS` [1] candidates, then all, a bounded
    block of pairs at a time. Fills ``state`` (radius, mass, ok, pending) in place."""
    radius, mass, ok, pending = state
    c = cands.distance.shape[1]
    for width in (min(WIDTHS[1], c), c):
        if not pending.any():
            break
        b, i = np.nonzero(pending)
        step = max(1, PAIRS // width)  # (pairs, width) arrays
        for start in range(0, len(b), step):
            bb, ii = b[start : start + step], i[start : start + step]
            w = multiplicities[bb[:, None], cands.unit(ii, width)] * cands.weight(ii, width)
            radius[bb, ii], mass[bb, ii], done = _first(cands.distance[ii, :width], w, target[bb, ii])
            pending[bb, ii] = ~done
        ok[b, i] = ~pending[b, i]


def _few_units(cands: Candidates, multiplicities, target, state) -> None:
    """:func:`crossing`'s long lists for the replicates that hold few units (the noise floor's splits at a model's
    size: one to a few ground-truth units of a hundred): their units' candidates only, in the merged order, so the
    cumulative mass is the one the whole list gives (an absent unit's candidates add 0). Fills ``state`` (radius,
    mass, ok, pending: (batch, Q) each) in place for those replicates."""
    radius, mass, ok, pending = state
    present = multiplicities > 0
    n_present = present.sum(axis=1)
    few = (n_present > 0) & (n_present * cands.positions.shape[2] * FEW_UNITS <= cands.distance.shape[1])
    for b in np.flatnonzero(few & pending.any(axis=1)):
        rows, units = np.flatnonzero(pending[b]), np.flatnonzero(present[b])
        columns = np.sort(cands.positions[rows[:, None], units[None, :]].reshape(len(rows), -1), axis=1)
        location = cands.location[rows[:, None], columns]
        w = multiplicities[b][cands.units[location]] * cands.weights[location]
        distance = cands.distance[rows[:, None], columns]
        radius[b, rows], mass[b, rows], ok[b, rows] = _first(distance, w, target[b, rows])
        pending[b, rows] = False
