"""Samples of a finished WESTPA run (``kind: westpa``): frames, weights and per-iteration cost.

Examples
--------
>>> segment_path("run/traj_segs/{iteration:06d}/{segment:06d}/seg.dcd", 3, 7)
'run/traj_segs/000003/000007/seg.dcd'
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

import numpy as np

from westbench.config import default
from westbench.external.ca_reader import CAReader, ExternalSamplesError, keep_frames
from westbench.io.westh5 import WestH5Error, iterations


def segment_path(template: str, iteration: int, segment: int, protein: str = "") -> str:
    """The trajectory file of one segment from the ``segments`` template."""
    return template.format(iteration=iteration, segment=segment, protein=protein)


def read_westpa(
    spec: Mapping, reader: CAReader, protein: str, on_nonfinite: str = default("on_nonfinite")
) -> tuple[dict, list[dict]]:
    """Frames and per-iteration cost of a finished WESTPA run (bad frames refused or left out, ``keep``)."""
    west_h5 = Path(spec["west_h5"].format(protein=protein))
    columns = {k: [] for k in ("ca", "weight", "traj", "time_ps", "iteration", "seg_id", "keep")}
    costs, traj = [], 0
    try:
        for iteration in iterations(west_h5, last=spec.get("max_iterations") or None):
            n_iter, index = iteration.number, iteration.seg_index
            for seg_id in range(len(index)):  # seg_index row = segment id
                path = segment_path(spec["segments"], n_iter, seg_id, protein)
                ca = reader.read(path)
                first = 1 if spec.get("drop_first_frame") else 0
                ca = ca[first:]
                n = len(ca)
                columns["keep"].append(reader.valid(ca, path, on_nonfinite, lambda row: f"frame {row + first}"))
                columns["ca"].append(ca)
                columns["weight"].append(np.full(n, index["weight"][seg_id]))
                columns["traj"].append(np.full(n, traj))
                columns["time_ps"].append(np.arange(1, n + 1) * spec["save_interval_ps"])
                columns["iteration"].append(np.full(n, n_iter))
                columns["seg_id"].append(np.full(n, seg_id))
                traj += 1
            costs.append(
                {
                    "iteration": n_iter,
                    "segments": len(index),
                    "ended_segments": 0,
                    "segment_wall_seconds": float(index["walltime"].sum()),
                    "segment_cpu_seconds": float(index["cputime"].sum()),
                }
            )
    except WestH5Error as exc:
        raise ExternalSamplesError(f"external engine '{reader.engine}': {exc}") from None
    if not costs:
        raise ExternalSamplesError(f"external engine '{reader.engine}': {west_h5} has no finished iteration")
    return keep_frames({k: np.concatenate(v) for k, v in columns.items()}), costs
