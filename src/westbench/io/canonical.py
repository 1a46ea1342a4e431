"""The one canonical order of a frame set: every score is computed on it, so none depends on the order of rows in
a file or on a frame written twice (the frames contract, :mod:`westbench.io.frames`, identifies a frame by its piece
and its time in it, not by its row).
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from westbench.io.frames import Frames

#: The per-frame dataset that :func:`canonical_frames` adds: how many identical rows each frame stands for.
MULTIPLICITY = "multiplicity"


def canonical_frames(frames: Mapping) -> Frames:
    """The frames in their one canonical order, identical rows merged: what every score is computed from.

    The contract identifies a frame by its piece (``traj``) and its time in it (``time_ps``), not by its row, so
    a score must not depend on the order of rows in a file nor on a frame written twice. Rows are sorted by
    (``traj``, ``time_ps``), rows that share both and hold the same coordinates (and TICs) are one frame written
    more than once: they become one row whose ``weight`` is their sum and whose :data:`MULTIPLICITY` is their
    count. Rows that share (``traj``, ``time_ps``) but differ are kept, ordered by their content, so the result
    depends on the set of rows only.

    Examples
    --------
    >>> frames = Frames(ca=np.array([[[2.0, 0, 0]], [[1.0, 0, 0]], [[2.0, 0, 0]]]), weight=np.array([0.2, 0.3, 0.5]),
    ...                 traj=np.array([0, 0, 0]), time_ps=np.array([1.0, 0.0, 1.0]), iteration=np.zeros(3, int))
    >>> frames.attrs = {}
    >>> canonical = canonical_frames(frames)
    >>> canonical["ca"][:, 0, 0].tolist(), canonical["weight"].tolist(), canonical[MULTIPLICITY].tolist()
    ([1.0, 2.0], [0.3, 0.7], [1, 2])
    """
    n = len(frames["ca"])
    if n == 0:  # nothing to order: the caller says what an empty frame set means
        out = Frames(frames)
        out[MULTIPLICITY] = np.zeros(0, dtype=np.int64)
        out.attrs = dict(getattr(frames, "attrs", {}))
        return out
    traj = np.asarray(frames["traj"]) if "traj" in frames else np.zeros(n, dtype=np.int64)
    # Without times (frames made in memory), the rows of a piece are taken to be in time order.
    time = np.asarray(frames["time_ps"], dtype=np.float64) if "time_ps" in frames else np.arange(n, dtype=np.float64)
    parts = [np.asarray(frames[name]).reshape(n, -1) for name in ("ca", "tics") if name in frames]
    # Rows that tie on (traj, time) are ordered by a fixed random projection of their content: equal for identical
    # rows, distinct (almost surely) for others, and one sort key however many atoms a frame has.
    rng = np.random.default_rng(0)
    projection = sum((part @ rng.normal(size=part.shape[1]) for part in parts), np.zeros(n))
    order = np.lexsort((projection, time, traj))
    first = np.ones(n, dtype=bool)
    if n > 1:
        same_key = (traj[order][1:] == traj[order][:-1]) & (time[order][1:] == time[order][:-1])
        candidates = np.flatnonzero(same_key)
        identical = np.ones(len(candidates), dtype=bool)
        for part in parts:
            identical &= np.all(part[order[candidates + 1]] == part[order[candidates]], axis=1)
        first[candidates[identical] + 1] = False
    multiplicity = np.asarray(frames[MULTIPLICITY]) if MULTIPLICITY in frames else np.ones(n, dtype=np.int64)
    if first.all() and np.array_equal(order, np.arange(n)):  # already canonical: no copies
        out = Frames(frames)
        out[MULTIPLICITY] = multiplicity.astype(np.int64)
        out.attrs = dict(getattr(frames, "attrs", {}))
        return out
    group = np.cumsum(first) - 1
    kept = order[first]
    out = Frames(
        {
            name: np.asarray(values)[kept] if np.ndim(values) and len(values) == n else values
            for name, values in frames.items()
        }
    )
    out.attrs = dict(getattr(frames, "attrs", {}))
    out[MULTIPLICITY] = np.bincount(group, multiplicity[order], minlength=len(kept)).astype(np.int64)
    if "weight" in frames:
        out["weight"] = np.bincount(group, np.asarray(frames["weight"], dtype=np.float64)[order], minlength=len(kept))
    return out
