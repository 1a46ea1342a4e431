"""Export a WE run for analysis: every saved bead frame with its WE weight, and compute per iteration.

Weights are matched to frames by segment id (``seg_index`` row = segment id in
WESTPA), never by file or directory order.
"""

from __future__ import annotations

from pathlib import Path

import h5py
import numpy as np
import pandas as pd

from westbench.frames import write_frames
from westbench.we.coverage import coverage_by_iteration
from westbench.we.store import SegmentStore


def export_run(run_dir: str | Path, frames_path: str | Path, cost_path: str | Path, *, save_interval_ps: float,
               tica=None, coverage_grid=None, attrs: dict | None = None) -> dict:
    """Write ``frames.h5`` (frames contract plus ``seg_id``, ``frame``, ``status``) and ``cost.csv``.

    Parameters
    ----------
    run_dir : path
        The WE run (west.h5, segments/).
    save_interval_ps : float
        Time between saved frames of a segment.
    tica : TicaModel, optional
        Projects every frame onto all its TICs.
    coverage_grid : CoverageGrid, optional
        Adds the cumulative coverage after each iteration to ``cost.csv``.
    """
    from westbench.features import pairwise_distances

    run_dir = Path(run_dir)
    store = SegmentStore(run_dir / "segments")
    columns = {k: [] for k in ("ca", "weight", "traj", "time_ps", "iteration", "seg_id", "frame", "status")}
    cost_rows, traj = [], 0
    with h5py.File(run_dir / "west.h5", "r") as handle:
        last = int(handle.attrs["west_current_iteration"]) - 1
        for n_iter in range(1, last + 1):
            group = handle[f"iterations/iter_{n_iter:08d}"]
            index = group["seg_index"][()]
            stored = store.frames(n_iter)
            row_of = {int(seg_id): row for row, seg_id in enumerate(stored["seg_id"])}
            missing = sorted(set(range(len(index))) - set(row_of))
            if missing:
                raise RuntimeError(f"{run_dir}: iteration {n_iter} has no stored frames for segments {missing}")
            for seg_id in range(len(index)):
                frames = stored["frames"][row_of[seg_id]]
                n = len(frames)
                columns["ca"].append(frames)
                columns["weight"].append(np.full(n, index["weight"][seg_id]))
                columns["traj"].append(np.full(n, traj))
                columns["time_ps"].append(np.arange(1, n + 1) * save_interval_ps)
                columns["iteration"].append(np.full(n, n_iter))
                columns["seg_id"].append(np.full(n, seg_id))
                columns["frame"].append(np.arange(1, n + 1))
                columns["status"].append(np.full(n, stored["status"][row_of[seg_id]] == "ok"))
                traj += 1
            row = {"iteration": n_iter, "segments": len(index),
                   "ended_segments": int((stored["status"] != "ok").sum()),
                   "segment_wall_seconds": float(index["walltime"].sum()),
                   "segment_cpu_seconds": float(index["cputime"].sum())}
            cost_rows.append(row)
    data = {k: np.concatenate(v) if v else np.zeros(0) for k, v in columns.items()}
    extra = {}
    if tica is not None and len(data["ca"]):
        extra["tics"] = tica.transform(pairwise_distances(data["ca"])).astype(np.float32)
    write_frames(frames_path, ca=data["ca"], weight=data["weight"], traj=data["traj"], time_ps=data["time_ps"],
                 iteration=data["iteration"], attrs=attrs or {}, seg_id=data["seg_id"].astype(np.int64),
                 frame=data["frame"].astype(np.int64), ok=data["status"].astype(np.int8), **extra)
    cost = pd.DataFrame(cost_rows)
    if coverage_grid is not None and len(cost):
        cost["coverage"] = coverage_by_iteration(run_dir / "west.h5", coverage_grid)
    if len(cost):
        cost["cumulative_segments"] = cost["segments"].cumsum()
        cost["cumulative_wall_seconds"] = cost["segment_wall_seconds"].cumsum()
        cost["cumulative_cpu_seconds"] = cost["segment_cpu_seconds"].cumsum()
    cost.to_csv(cost_path, index=False)
    return {"iterations": last, "frames": int(len(data["ca"]))}
