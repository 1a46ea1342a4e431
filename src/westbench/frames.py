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
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping

import h5py
import numpy as np

from westbench.atomic import atomic_path

REQUIRED = ("ca", "weight", "traj", "time_ps", "iteration")
DTYPES = {"ca": np.float32, "weight": np.float64, "traj": np.int64, "time_ps": np.float64, "iteration": np.int64,
          "tics": np.float32, "forces": np.float32, "energy": np.float64, "replica": np.int64}


class Frames(dict):
    """The datasets of a frames file, with its attributes in ``attrs``."""

    attrs: dict

    def __len__(self):
        return len(self["ca"])


def write_frames(path: str | Path, ca, time_ps, weight=None, traj=None, iteration=None, attrs: Mapping | None = None, **extra) -> None:
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
