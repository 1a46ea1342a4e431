"""Samples as plain trajectories (``kind: trajectories``), with optional per-frame weights.

Each file is one "iteration" of the cost table; without weights every frame counts equally, with them each
file's weights are used as given and the whole set is normalized.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

import numpy as np

from westbench.config import default
from westbench.external.ca_reader import CAReader, ExternalSamplesError, keep_frames
from westbench.io.frames import BadFramesError, check_weights
from westbench.io.trajectories import TrajectoryError, import_names, refuse_duplicate_files, trajectory_files


def _weights_file(path: Path) -> np.ndarray:
    if path.suffix == ".npy":
        return np.load(path)
    if path.suffix == ".npz":
        with np.load(path) as arrays:
            return arrays["weight"] if "weight" in arrays else arrays[arrays.files[0]]
    return np.loadtxt(path)


def read_trajectories(
    spec: Mapping, reader: CAReader, protein: str, on_nonfinite: str = default("on_nonfinite")
) -> tuple[dict, list[dict]]:
    """Frames (optional per-frame weights) and one cost row per file of plain trajectories."""
    files = _trajectory_files(spec, reader, protein)
    names = [import_names([f])[0] for f in files]
    stride = spec["stride"]
    columns = {k: [] for k in ("ca", "weight", "traj", "time_ps", "iteration", "keep")}
    costs = []
    for number, (path, name) in enumerate(zip(files, names)):
        ca = reader.read(path)
        n_full = len(ca)
        weights = _frame_weights(spec, reader, protein, name, path, n_full)
        ca, weights = ca[::stride], weights[::stride]
        n = len(ca)
        columns["keep"].append(reader.valid(ca, path, on_nonfinite, lambda row: f"frame {row * stride}"))
        columns["ca"].append(ca)
        columns["weight"].append(weights)
        columns["traj"].append(np.full(n, number))
        columns["time_ps"].append(np.arange(1, n + 1) * spec["save_interval_ps"] * stride)
        columns["iteration"].append(np.full(n, number + 1))
        costs.append(
            {
                "iteration": number + 1,
                "segments": 1,
                "ended_segments": 0,
                "segment_wall_seconds": np.nan,
                "segment_cpu_seconds": np.nan,
            }
        )
    data = keep_frames({k: np.concatenate(v) for k, v in columns.items()})
    total = data["weight"].sum()
    if not total > 0:
        raise ExternalSamplesError(
            f"external engine '{reader.engine}': the frames kept of {spec['trajectories']!r} "
            f"have total weight {total:g}: give weights above zero to some frames"
        )
    data["weight"] = data["weight"] / total
    return data, costs


def _trajectory_files(spec: Mapping, reader: CAReader, protein: str) -> list:
    """The protein's trajectory files the spec names; an error when none match or one is given twice."""
    files = trajectory_files(spec["trajectories"] or [], protein)
    if not files:
        raise ExternalSamplesError(
            f"external engine '{reader.engine}': trajectories {spec['trajectories']!r} match no "
            f"file: set external.{reader.engine}.trajectories to a glob or list of existing "
            f"files ({{protein}} is replaced by the protein id)"
        )
    try:
        refuse_duplicate_files(files, f"external.{reader.engine}.trajectories")
    except TrajectoryError as exc:
        raise ExternalSamplesError(f"external engine '{reader.engine}': {exc}") from None
    return files


def _frame_weights(spec: Mapping, reader: CAReader, protein: str, name: str, path, n_full: int) -> np.ndarray:
    """The per-frame weights of one trajectory (its weights file, checked; equal weights without one)."""
    if not spec.get("weights"):
        return np.ones(n_full)
    weights_path = Path(spec["weights"].format(protein=protein, name=name))
    try:
        weights = np.asarray(_weights_file(weights_path), dtype=np.float64).ravel()
    except Exception as exc:
        raise ExternalSamplesError(
            f"external engine '{reader.engine}': weights {weights_path} cannot be "
            f"read ({type(exc).__name__}: {exc}): write one weight per frame of "
            f"{path} as .npy, .npz or text, or set external.{reader.engine}.weights "
            f"to null (equal weights)"
        ) from None
    try:
        return check_weights(weights, source=str(weights_path), n_frames=n_full, trajectory=str(path))
    except BadFramesError as exc:
        raise ExternalSamplesError(f"external engine '{reader.engine}': {exc}") from None
