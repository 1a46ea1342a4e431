"""The frame sets the metric suite scores: leading WE iterations left out, each frame's distributions, and how much
simulated time a frame set holds.

Weight pooling: each WE iteration's weights sum to one, and the frames of all iterations are pooled with their weights
as exported, so every iteration counts equally; :func:`discard_leading_iterations` drops the first iterations before
any weighting. :func:`distributions` gives every frame's values of each scored distribution in its units
(:data:`UNITS`), the dihedrals on their circle (:data:`PERIODS`).

Examples
--------
>>> rng = np.random.default_rng(0)
>>> frames = {"ca": rng.normal(size=(3, 5, 3)), "tics": rng.normal(size=(3, 2))}
>>> {name: values.shape for name, values in distributions(frames).items()}  # (frames, values per frame)
{'tic0': (3, 1), 'tic1': (3, 1), 'rg': (3, 1), 'bonds': (3, 4), 'angles': (3, 3), 'dihedrals': (3, 2)}
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from westbench.errors import WestbenchError
from westbench.geometry.ca_geometry import chain_geometry, quantized

__all__ = ["PERIODS", "UNITS", "discard_leading_iterations", "distributions", "simulated_time_ps"]

#: Distributions on a circle: (low, high) of their period, in their units (degrees).
PERIODS = {"dihedrals": (-180.0, 180.0)}
#: The unit of each distribution's values (and so of its W1).
UNITS = {
    "tic0": "",
    "tic1": "",
    "tic2": "",
    "tic3": "",
    "tic01": "",
    "rg": "Å",
    "bonds": "Å",
    "angles": "degrees",
    "dihedrals": "degrees",
}


def discard_leading_iterations(frames: Mapping, discard: float) -> tuple[Mapping, int]:
    """The frames without their first iterations: ``discard`` >= 1 a count, below 1 a fraction of the iterations.

    Frames with a single iteration (the ground truth, plain trajectories of one file) are kept whole.

    Examples
    --------
    >>> frames = {"iteration": np.repeat([1, 2, 3, 4], 2), "weight": np.ones(8)}
    >>> kept, n = discard_leading_iterations(frames, 0.5)
    >>> n, kept["iteration"].tolist()
    (2, [3, 3, 4, 4])
    """
    iteration = np.asarray(frames["iteration"]) if "iteration" in frames else np.zeros(len(frames["weight"]))
    levels = np.unique(iteration)
    n = int(discard) if discard >= 1 else int(np.floor(discard * len(levels)))
    if n <= 0 or len(levels) <= 1:
        return frames, 0
    if n >= len(levels):
        raise WestbenchError(
            f"metrics.discard_iterations {discard} leaves none of the {len(levels)} iterations: lower it"
        )
    keep = iteration >= levels[n]
    kept = type(frames)({k: (v[keep] if np.ndim(v) and len(v) == len(keep) else v) for k, v in frames.items()})
    if hasattr(frames, "attrs"):
        kept.attrs = dict(frames.attrs)
    return kept, n


def distributions(frames: Mapping) -> dict[str, np.ndarray]:
    """Per distribution: values (n_frames, k), k values per frame; Rg and bonds in Angstrom, angles and
    dihedrals in degrees (:data:`UNITS`)."""
    ca = np.asarray(frames["ca"])
    out = {f"tic{i}": np.asarray(frames["tics"])[:, i : i + 1] for i in range(min(4, np.shape(frames["tics"])[1]))}
    geometry = chain_geometry(ca)  # float64, rounded to 2^-30 of a unit: ties and edge values stay put (quantized)
    out.update(
        rg=quantized(10.0 * geometry["rg"][:, None]),
        bonds=quantized(10.0 * geometry["bonds"]),
        angles=quantized(np.degrees(geometry["angles"])),
        dihedrals=quantized(np.degrees(geometry["dihedrals"])),
    )
    return out


def simulated_time_ps(frames: Mapping) -> tuple[float, float]:
    """Longest continuous simulated time and aggregate simulated time of a frame set (ps).

    A WE run (frames with ``seg_id``) simulates lineages of one segment per iteration:
    longest = iterations x segment length. Otherwise every run (``traj``) is one
    trajectory: longest = the longest run. Aggregate = every piece's length summed.

    Examples
    --------
    >>> frames = {"time_ps": np.tile([1.0, 2.0], 3), "traj": np.repeat([0, 1, 2], 2),
    ...           "iteration": np.repeat([1, 1, 2], 2), "seg_id": np.array([0, 0, 1, 1, 0, 0])}
    >>> simulated_time_ps(frames)
    (4.0, 6.0)
    """
    time, traj = np.asarray(frames["time_ps"], dtype=np.float64), np.asarray(frames["traj"])
    if len(time) == 0:
        return 0.0, 0.0
    pieces, index = np.unique(traj, return_inverse=True)
    start = np.full(len(pieces), np.inf)
    end = np.full(len(pieces), -np.inf)
    np.minimum.at(start, index, time)
    np.maximum.at(end, index, time)
    interval = float(np.median(np.diff(np.sort(np.unique(time))))) if len(np.unique(time)) > 1 else 0.0
    durations = end - start + interval  # a piece of n frames saved every dt covers n * dt
    if "seg_id" in frames and "iteration" in frames:
        return float(len(np.unique(frames["iteration"])) * durations.max()), float(durations.sum())
    return float(durations.max()), float(durations.sum())
