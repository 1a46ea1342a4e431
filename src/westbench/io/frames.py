"""The frames contract: one HDF5 file per run, shared by ground truth and WE.

Datasets: ``ca`` (n, residues, 3) float32 nm; ``weight`` (n,) float64;
``traj`` (n,) int64 piece of continuous trajectory; ``time_ps`` (n,) float64;
``iteration`` (n,) int64; optional ``tics`` (n, k) float32, ``forces``
(n, residues, 3) float32 kJ/mol/nm, ``energy`` (n,) float64 kJ/mol, ``replica`` (n,) int64
(the independent WE run of a frame, when an export pools several: :mod:`westbench.we.replicas`).

Examples
--------
>>> import numpy as np, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "frames.h5")
>>> write_frames(path, ca=np.zeros((2, 3, 3)), time_ps=[0.0, 1.0], attrs={"protein": "p"})
>>> frames = read_frames(path)
>>> frames["weight"].tolist(), frames.attrs["protein"]
([0.5, 0.5], 'p')

Bad samples are refused at the door (:func:`keep_valid_frames`): every producer of a frames file
(ground-truth import, external samples, the WE export) checks the C-alpha positions before it
writes; a frame with a non-finite coordinate or one beyond :data:`MAX_ABS_NM` is an error naming
the file, the frame and the atom, or, with the config's ``on_nonfinite: drop``, left out and
counted in the attribute :data:`DROPPED_ATTR`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping

import h5py
import numpy as np

from westbench.config import default
from westbench.errors import WestbenchError
from westbench.io.atomic import atomic_path

#: The frames-file attribute with the number of frames left out for bad coordinates (``on_nonfinite: drop``).
DROPPED_ATTR = "nonfinite_frames_dropped"
#: Coordinates beyond this (nm) are no molecule's: refused like NaN (an exploded or corrupt frame).
MAX_ABS_NM = 1.0e4
#: The values of the config key ``on_nonfinite``.
ON_NONFINITE = ("error", "drop")

REQUIRED = ("ca", "weight", "traj", "time_ps", "iteration")
DTYPES = {
    "ca": np.float32,
    "weight": np.float64,
    "traj": np.int64,
    "time_ps": np.float64,
    "iteration": np.int64,
    "tics": np.float32,
    "forces": np.float32,
    "energy": np.float64,
    "replica": np.int64,
}


class Frames(dict):
    """The datasets of a frames file, with its attributes in ``attrs``."""

    attrs: dict

    def __len__(self):
        return len(self["ca"])


def write_frames(
    path: str | Path, ca, time_ps, weight=None, traj=None, iteration=None, attrs: Mapping | None = None, **extra
) -> None:
    """Write a frames file atomically; missing weights are uniform, ``traj`` and ``iteration`` zero."""
    ca = np.asarray(ca, dtype=np.float32)
    n = len(ca)
    data = {
        "ca": ca,
        "time_ps": time_ps,
        "weight": np.full(n, 1.0 / max(n, 1)) if weight is None else weight,
        "traj": np.zeros(n) if traj is None else traj,
        "iteration": np.zeros(n) if iteration is None else iteration,
        **{k: v for k, v in extra.items() if v is not None},
    }
    with atomic_path(path) as temporary, h5py.File(temporary, "w") as handle:
        for name, values in data.items():
            values = np.asarray(values, dtype=DTYPES.get(name))
            if len(values) != n:
                raise ValueError(f"dataset {name} has {len(values)} rows, ca has {n}")
            handle.create_dataset(name, data=values, compression="gzip" if values.ndim > 1 else None)
        for key, value in (attrs or {}).items():
            handle.attrs[key] = value if isinstance(value, (str, int, float)) else json.dumps(value)


def read_frames(path: str | Path) -> Frames:
    """Read every dataset and attribute of a frames file."""
    frames = Frames()
    with h5py.File(path, "r") as handle:
        missing = [name for name in REQUIRED if name not in handle]
        if missing:
            raise ValueError(f"{path} is not a westbench frames file: missing {missing}")
        for name in handle:
            frames[name] = handle[name][()]
        frames.attrs = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in handle.attrs.items()}
    return frames


def concatenate(parts: list[Frames]) -> dict:
    """Join frames of several runs; ``traj`` is renumbered so pieces stay distinct."""
    joined: dict = {}
    offset = 0
    for part in parts:
        renumbered = dict(part)
        renumbered["traj"] = part["traj"] - part["traj"].min() + offset if len(part) else part["traj"]
        offset = int(renumbered["traj"].max()) + 1 if len(part) else offset
        for name, values in renumbered.items():
            joined.setdefault(name, []).append(values)
    return {name: np.concatenate(values) for name, values in joined.items()}


def ok_frames(frames: Frames) -> Frames:
    """The frames of walkers that did not end early (``ok`` = 1 in a WE export); all frames without ``ok``.

    Examples
    --------
    >>> frames = Frames(ca=np.zeros((3, 2, 3)), ok=np.array([1, 0, 1], np.int8), weight=np.ones(3)); frames.attrs = {}
    >>> len(ok_frames(frames)), ok_frames(frames)["weight"].tolist()
    (2, [1.0, 1.0])
    """
    if "ok" not in frames or frames["ok"].all():
        return frames
    keep = frames["ok"].astype(bool)
    selected = Frames({name: values[keep] if len(values) == len(keep) else values for name, values in frames.items()})
    selected.attrs = dict(getattr(frames, "attrs", {}))
    return selected


class BadFramesError(WestbenchError):
    """Samples with non-finite or impossible coordinates (or weights) reached a frames-file producer."""


def invalid_frames(ca) -> np.ndarray:
    """Per frame: True where a coordinate is non-finite or beyond :data:`MAX_ABS_NM` nm.

    Examples
    --------
    >>> ca = np.zeros((3, 2, 3)); ca[1, 0, 2] = np.nan; ca[2, 1, 0] = 1e6
    >>> invalid_frames(ca).tolist()
    [False, True, True]
    """
    ca = np.asarray(ca)
    if ca.size == 0:
        return np.zeros(len(ca), dtype=bool)
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(ca) | (np.abs(ca) > MAX_ABS_NM)
    return bad.reshape(len(ca), -1).any(axis=1)


def keep_valid_frames(
    ca, *, source: str, on_nonfinite: str = default("on_nonfinite"), frame_of=None, atom_of=None, fix: str | None = None
) -> np.ndarray:
    """The frames to keep of ``ca`` (n, atoms, 3): all, or an error naming the first bad frame and atom.

    Parameters
    ----------
    ca : array (n_frames, n_atoms, 3), nm
    source : str
        The file (or run) the frames come from, for the message.
    on_nonfinite : {"error", "drop"}
        ``error`` raises :class:`BadFramesError`; ``drop`` returns a mask leaving bad frames out.
    frame_of, atom_of : callable, optional
        ``frame_of(row) -> str`` and ``atom_of(index) -> str`` name a frame and an atom in the
        message (default ``frame <row>``, ``C-alpha <index>``).
    fix : str, optional
        How to repair the source (default: export the frames again or cut the bad ones).

    Returns
    -------
    ndarray of bool
        Per frame, whether it is kept.

    Examples
    --------
    >>> ca = np.zeros((3, 2, 3)); ca[1, 1, 0] = np.inf
    >>> keep_valid_frames(ca, source="a.dcd", on_nonfinite="drop").tolist()
    [True, False, True]
    >>> keep_valid_frames(ca, source="a.dcd")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    westbench.io.frames.BadFramesError: a.dcd: frame 1 has coordinate inf nm at C-alpha 1 (1 of 3 frames have
    non-finite or out-of-range coordinates, |x| > 10000 nm). Fix the file (export the frames again from a run
    that did not blow up, or cut the bad frames), or set `on_nonfinite: drop` in the config to leave such
    frames out (their number is recorded as the frames-file attribute nonfinite_frames_dropped).
    """
    if on_nonfinite not in ON_NONFINITE:
        raise BadFramesError(f"on_nonfinite is {on_nonfinite!r}: set it to one of {', '.join(ON_NONFINITE)}")
    ca = np.asarray(ca)
    bad = invalid_frames(ca)
    if not bad.any() or on_nonfinite == "drop":
        return ~bad
    row = int(np.flatnonzero(bad)[0])
    with np.errstate(invalid="ignore"):
        wrong = ~np.isfinite(ca[row]) | (np.abs(ca[row]) > MAX_ABS_NM)
    atom, axis = (int(i) for i in np.argwhere(wrong)[0])
    frame = frame_of(row) if frame_of else f"frame {row}"
    where = atom_of(atom) if atom_of else f"C-alpha {atom}"
    fix = fix or "Fix the file (export the frames again from a run that did not blow up, or cut the bad frames)"
    raise BadFramesError(
        f"{source}: {frame} has coordinate {float(ca[row, atom, axis]):g} nm at {where} ({int(bad.sum())} of "
        f"{len(ca)} frames have non-finite or out-of-range coordinates, |x| > {MAX_ABS_NM:g} nm). {fix}, or set "
        f"`on_nonfinite: drop` in the config to leave such frames out (their number is recorded as the "
        f"frames-file attribute {DROPPED_ATTR})."
    )


def split_at_gaps(traj, keep) -> np.ndarray:
    """``traj`` of the kept frames, a piece split where frames were left out (lagged statistics skip the gap).

    Examples
    --------
    >>> split_at_gaps(np.array([0, 0, 0, 0, 1, 1]), np.array([True, True, False, True, True, True])).tolist()
    [0, 0, 1, 2, 2]
    """
    traj, keep = np.asarray(traj), np.asarray(keep, dtype=bool)
    if not len(traj):
        return traj.astype(np.int64)
    starts = np.ones(len(traj), dtype=bool)
    starts[1:] = (traj[1:] != traj[:-1]) | ~keep[:-1]
    return (np.cumsum(starts) - 1)[keep].astype(np.int64) if keep.any() else np.zeros(0, np.int64)


def check_weights(weights, *, source: str, n_frames: int, trajectory: str) -> np.ndarray:
    """Per-frame weights as float64, or an error naming the file, the first bad frame and the fix.

    Examples
    --------
    >>> check_weights([0.5, 0.5], source="w.npy", n_frames=2, trajectory="a.dcd").tolist()
    [0.5, 0.5]
    >>> check_weights([0.5, -1.0], source="w.npy", n_frames=2, trajectory="a.dcd")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    westbench.io.frames.BadFramesError: weights w.npy: frame 1 has weight -1, below zero (1 of 2 weights).
    Weights must be finite, non-negative and not all zero: write one such value per frame of a.dcd.
    """
    weights = np.asarray(weights, dtype=np.float64).ravel()
    fix = f"Weights must be finite, non-negative and not all zero: write one such value per frame of {trajectory}."
    if len(weights) != n_frames:
        raise BadFramesError(
            f"weights {source} hold {len(weights)} values; {trajectory} has {n_frames} frames. "
            f"Write one weight per frame of the trajectory (before the stride)."
        )
    for test, what in ((~np.isfinite(weights), "not finite"), (weights < 0, "below zero")):
        with np.errstate(invalid="ignore"):
            bad = test
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise BadFramesError(
                f"weights {source}: frame {row} has weight {weights[row]:g}, {what} "
                f"({int(bad.sum())} of {len(weights)} weights). {fix}"
            )
    if n_frames and not (weights > 0).any():
        raise BadFramesError(
            f"weights {source}: all {len(weights)} weights are zero, so no frame of {trajectory} would count. {fix}"
        )
    return weights
