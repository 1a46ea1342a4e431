"""The one canonical form of a frame set: every score is computed on it, so none depends on what carries no
information (the order of rows, a frame written more than once, frames of weight 0).

What a frame set says (the scoring contract, docs/scoring.md "What an interval depends on"): which records it holds
(a conformation saved at a time, with its weight, in an iteration), which continuous piece (``traj``), WE segment
and replica each belongs to, and from that which independent runs they come from. What it does not say, and so
what the canonical form removes:

- **the order of rows**: rows are sorted by piece (``traj``) and time (``time_ps``), ties by content;
- **frames of weight 0**: they carry no probability and are no part of the sample (left out under every
  weighting, so an added weightless frame changes no count, no grid, no transition and no unit); a set whose
  every weight is 0 is kept whole (it says nothing about weights, and the ``we`` weighting refuses it);
- **copies**: rows equal in everything but their labels (:data:`LABELS`: piece, segment, replica) are one record
  written more than once, whether twice in one piece, once more in a new piece (with the weight split between
  the copies, each copy holds the same share, which normalizing removes), or in a whole piece, replica or file
  written again. The record is kept once, at the copy in the piece of most distinct records (ties: the first by
  piece and time), and :data:`MULTIPLICITY` says how many rows it stood for. A piece, replica or run whose rows
  are all copies of rows kept elsewhere is therefore no new piece, replica or run: no new independent unit.

Records that hold the same conformation at other times or with other weights (an engine stuck in one
conformation, walkers that meet) are distinct observations and all stay; :data:`CONFORMATION` numbers the
distinct conformations (equal coordinates and TICs), so an effective sample size can count a conformation once,
its weights summed (:func:`westbench.metrics.weighted.effective_sample_size`). Two independent simulations do
not write bitwise-identical frames: on real data neither rule merges anything (none of the default run's frames
files holds a copy).

Examples
--------
>>> frames = Frames(ca=np.array([[[2.0, 0, 0]], [[1.0, 0, 0]], [[2.0, 0, 0]], [[3.0, 0, 0]], [[2.0, 0, 0]]]),
...                 weight=np.array([0.3, 0.3, 0.3, 0.0, 0.1]), traj=np.array([0, 0, 1, 0, 0]),
...                 time_ps=np.array([1.0, 0.0, 1.0, 2.0, 3.0]), iteration=np.zeros(5, int))
>>> frames.attrs = {}
>>> canonical = canonical_frames(frames)  # row 2 copies row 0 in another piece; row 3 has no weight
>>> canonical["ca"][:, 0, 0].tolist(), canonical["weight"].tolist(), canonical[MULTIPLICITY].tolist()
([1.0, 2.0, 2.0], [0.3, 0.3, 0.1], [1, 2, 1])
>>> canonical[CONFORMATION].tolist()  # the last two rows: one conformation, saved at two times
[0, 1, 1]
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from westbench.io.frames import Frames

#: The per-frame dataset that :func:`canonical_frames` adds: how many rows held each record (itself and its copies).
MULTIPLICITY = "multiplicity"
#: The per-frame dataset that :func:`canonical_frames` adds: the frame's distinct conformation (0..m-1; equal
#: coordinates and TICs, one number).
CONFORMATION = "conformation"
#: Datasets that name where a row was written, not what it holds: rows equal in everything else are copies.
LABELS = ("traj", "seg_id", "replica")
#: The content key reads at most this many coordinates of a row (enough to tell frames apart; equality is then
#: checked on every coordinate).
KEY_COLUMNS = 16


def content_key(parts: list[np.ndarray], seed: int = 0) -> np.ndarray:
    """A sort key per row, equal for identical rows: a fixed random projection of (up to :data:`KEY_COLUMNS` of)
    their values, accumulated one column at a time, so a row's key never depends on where it sits in the array
    (a matrix product may round a row differently by its alignment). -0.0 counts as 0.0 and every NaN as one value.

    Examples
    --------
    >>> rows = np.array([[1.0, 2.0], [3.0, 4.0], [1.0, 2.0]])
    >>> key = content_key([rows])
    >>> bool(key[0] == key[2] and key[0] != key[1])
    True
    """
    n = len(parts[0]) if parts else 0
    key = np.zeros(n)
    rng = np.random.default_rng(seed)
    for part in parts:
        columns = part.shape[1]
        chosen = np.sort(rng.choice(columns, size=min(columns, KEY_COLUMNS), replace=False))
        factors = rng.normal(size=len(chosen))
        block = np.array(part[:, chosen].T, dtype=np.float64)  # one contiguous row per column
        block += 0.0  # -0.0 is 0.0
        np.copyto(block, 0.5, where=np.isnan(block))
        for factor, values in zip(factors, block):
            key += values * factor
    return key


def _equal_rows(part: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Whether rows ``a`` and ``b`` of ``part`` hold the same values (NaN equal to NaN)."""
    x, y = part[a], part[b]
    equal = x == y
    if np.issubdtype(part.dtype, np.floating):
        equal |= np.isnan(x) & np.isnan(y)
    return equal.all(axis=1)


def conformations(parts: list[np.ndarray], key: np.ndarray | None = None) -> np.ndarray:
    """The distinct row (0..m-1, numbered in the order of their content) of every row: rows equal on every value of
    ``parts`` share one. ``key``: their :func:`content_key`, when already made.

    Rows are sorted by their keys and only neighbours with equal keys are compared in full; should two different
    rows share keys (they agree on every column the keys read), every row is compared in full instead.

    Examples
    --------
    >>> conformations([np.array([[1.0, 2.0], [3.0, 4.0], [1.0, 2.0]])]).tolist()
    [0, 1, 0]
    """
    n = len(parts[0]) if parts else 0
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    key = content_key(parts) if key is None else key
    order = np.argsort(key)  # identical rows have equal keys: neighbours unless a different row shares it
    ordered = key[order]
    candidates = np.flatnonzero(ordered[1:] == ordered[:-1])
    same = np.zeros(n - 1, dtype=bool)
    if len(candidates):
        equal = np.ones(len(candidates), dtype=bool)
        for part in parts:
            equal &= _equal_rows(part, order[candidates + 1], order[candidates])
        if not equal.all():  # different rows with equal keys: group them exactly
            return _exact_groups(parts)
        same[candidates] = True
    out = np.empty(n, dtype=np.int64)
    out[order] = np.cumsum(np.r_[True, ~same]) - 1
    return out


def _exact_groups(parts: list[np.ndarray]) -> np.ndarray:
    """:func:`conformations` by comparing every value (slow; for rows the keys cannot tell apart)."""
    rows = np.concatenate([np.asarray(part, dtype=np.float64) + 0.0 for part in parts], axis=1)
    np.copyto(rows, 0.5, where=np.isnan(rows))
    return np.unique(rows, axis=0, return_inverse=True)[1].ravel().astype(np.int64)


def canonical_frames(frames: Mapping) -> Frames:
    """The frames in their one canonical form (module text): weightless rows left out, copies of a record kept once
    (:data:`MULTIPLICITY` their count), each row's distinct conformation numbered (:data:`CONFORMATION`), sorted by
    piece and time, ties by content. The result depends on the information in the rows only."""
    n = len(frames["ca"])
    attrs = dict(getattr(frames, "attrs", {}))
    per_row = [name for name, values in frames.items() if np.ndim(values) and len(values) == n]
    if n == 0:  # nothing to order: the caller says what an empty frame set means
        out = Frames(frames)
        out[MULTIPLICITY] = np.zeros(0, dtype=np.int64)
        out[CONFORMATION] = np.zeros(0, dtype=np.int64)
        out.attrs = attrs
        return out
    weight = np.asarray(frames["weight"], dtype=np.float64) if "weight" in frames else None
    rows = np.arange(n)
    if weight is not None and np.any(weight != 0.0) and np.any(weight == 0.0):
        rows = np.flatnonzero(weight != 0.0)
    traj = np.asarray(frames["traj"])[rows] if "traj" in frames else np.zeros(len(rows), dtype=np.int64)
    # Without times (frames made in memory), the rows of a piece are taken to be in time order.
    time = np.asarray(frames["time_ps"], dtype=np.float64)[rows] if "time_ps" in frames else rows.astype(np.float64)
    every = len(rows) == n

    def column(name):  # the kept rows of a dataset, one row per frame (no copy when every row is kept)
        values = np.asarray(frames[name])
        return (values if every else values[rows]).reshape(len(rows), -1)

    content = [column(name) for name in ("ca", "tics") if name in frames]
    held = [
        column(name)
        for name in sorted(per_row)
        if name not in LABELS and name not in (MULTIPLICITY, CONFORMATION, "ca", "tics")
    ]
    if "time_ps" not in frames:
        held.append(time[:, None])
    key = content_key(content)
    conformation = conformations(content, key)
    record = conformation
    if conformation.max() + 1 < len(rows):  # some conformation is held more than once: which rows are copies
        record = conformations(content + held, key + content_key(held, seed=1))
    if record.max() + 1 == len(rows):  # no copies: every row stays
        kept = np.lexsort((key, time, traj))
    else:
        kept = _first_copies(record, key, time, traj)
    written = np.asarray(frames[MULTIPLICITY])[rows] if MULTIPLICITY in frames else np.ones(len(rows))
    count = np.bincount(record, written)[record[kept]].astype(np.int64)
    source = rows[kept]
    out = (
        Frames(frames)
        if len(kept) == n and np.array_equal(source, np.arange(n))
        else Frames(
            {name: np.asarray(values)[source] if name in per_row else values for name, values in frames.items()}
        )
    )
    out.attrs = attrs
    out[MULTIPLICITY] = count
    out[CONFORMATION] = conformation[kept]
    return out


def _first_copies(record: np.ndarray, key: np.ndarray, time: np.ndarray, traj: np.ndarray) -> np.ndarray:
    """The row kept of each record, in the canonical order (piece, time, content)."""
    # The copy that stays: the one in the piece of most distinct records (a frame copied into a piece of its
    # own is not the original), then the first by piece, time and content.
    _, piece = np.unique(traj, return_inverse=True)
    stride = int(record.max()) + 1
    distinct = np.unique(piece.astype(np.int64) * stride + record) // stride
    length = np.bincount(distinct, minlength=int(piece.max()) + 1)
    order = np.lexsort((key, time, traj, -length[piece], record))
    kept = order[np.r_[True, record[order][1:] != record[order][:-1]]]
    return kept[np.lexsort((key[kept], time[kept], traj[kept]))]  # the canonical order
