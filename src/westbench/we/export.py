"""Export a WE run for analysis: every saved bead frame with its WE weight, and compute per iteration.

Weights are matched to frames by segment id (``seg_index`` row = segment id in
WESTPA), never by file or directory order. west.h5 is read once, through
:func:`westbench.io.westh5.iterations`.

Frames with non-finite (or beyond ±1e4 nm) coordinates: those of a walker the engine ended
(``exploded``) are the explosion itself, never samples, and are left out (counted in the attribute
``ended_nonfinite_frames_dropped``); in a walker whose status is ``ok`` they are an engine bug, an
error naming iteration, segment, frame and atom, unless ``on_nonfinite`` is ``drop`` (left out,
counted in ``nonfinite_frames_dropped``). A piece with frames left out is split at the gap.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from westbench.config import default
from westbench.io.costs import cost_table, coverage_by_iteration
from westbench.io.frames import DROPPED_ATTR, invalid_frames, keep_valid_frames, split_at_gaps, write_frames
from westbench.io.westh5 import iterations
from westbench.we.store import SegmentStore


def export_run(
    run_dir: str | Path,
    frames_path: str | Path,
    cost_path: str | Path,
    *,
    save_interval_ps: float,
    tica=None,
    coverage_grid=None,
    attrs: dict | None = None,
    on_nonfinite: str = default("on_nonfinite"),
) -> dict:
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
        With ``tica``: adds the cumulative coverage after each iteration to ``cost.csv``, from the
        exported frames the metric suite's coverage column counts (:mod:`westbench.io.costs`).
    on_nonfinite : {"error", "drop"}
        What to do with non-finite frames of walkers whose status is ``ok`` (the config key).
    """
    run_dir = Path(run_dir)
    columns, cost_rows = _read_run(run_dir, save_interval_ps)
    data = {k: np.concatenate(v) if v else np.zeros(0) for k, v in columns.items()}
    data["status"] = data["status"].astype(bool)
    keep, counts = _frames_kept(data, run_dir, on_nonfinite)
    if not keep.all():
        data = {k: v[keep] for k, v in data.items()}
        data["traj"] = split_at_gaps(np.concatenate(columns["traj"]), keep)
    extra = {}
    if tica is not None and len(data["ca"]):
        extra["tics"] = tica.project(data["ca"]).astype(np.float32)
    write_frames(
        frames_path,
        ca=data["ca"],
        weight=data["weight"],
        traj=data["traj"],
        time_ps=data["time_ps"],
        iteration=data["iteration"],
        attrs={**(attrs or {}), **counts},
        seg_id=data["seg_id"].astype(np.int64),
        frame=data["frame"].astype(np.int64),
        ok=data["status"].astype(np.int8),
        **extra,
    )
    coverage = None
    if coverage_grid is not None and "tics" in extra:
        coverage = coverage_by_iteration(
            coverage_grid,
            {**data, "tics": extra["tics"], "ok": data["status"]},
            [row["iteration"] for row in cost_rows],
        )
    cost_table(cost_rows, coverage).to_csv(cost_path, index=False)
    return {"iterations": len(cost_rows), "frames": int(len(data["ca"])), **counts}


def _read_run(run_dir: Path, save_interval_ps: float) -> tuple[dict, list[dict]]:
    """Every segment's frames as per-segment column pieces, matched by segment id, and each iteration's cost row."""
    store = SegmentStore(run_dir / "segments")
    columns = {k: [] for k in ("ca", "weight", "traj", "time_ps", "iteration", "seg_id", "frame", "status")}
    cost_rows, traj = [], 0
    for iteration in iterations(run_dir / "west.h5"):
        n_iter, index = iteration.number, iteration.seg_index
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
        cost_rows.append(
            {
                "iteration": n_iter,
                "segments": len(index),
                "ended_segments": int((stored["status"] != "ok").sum()),
                "segment_wall_seconds": float(index["walltime"].sum()),
                "segment_cpu_seconds": float(index["cputime"].sum()),
            }
        )
    return columns, cost_rows


def _frames_kept(data: dict, run_dir: Path, on_nonfinite: str) -> tuple[np.ndarray, dict]:
    """Which frames stay (ended walkers' bad frames go, ok walkers' per ``on_nonfinite``) and the counts dropped."""
    bad, ok_rows = invalid_frames(data["ca"]), np.flatnonzero(data["status"])

    def frame_of(row):
        i = ok_rows[row]
        return f"iteration {int(data['iteration'][i])} segment {int(data['seg_id'][i])} frame {int(data['frame'][i])}"

    keep = ~bad  # ended walkers: their bad frames always go
    keep[ok_rows] = keep_valid_frames(
        data["ca"][ok_rows] if len(data["ca"]) else data["ca"],
        source=f"WE run {run_dir}",
        on_nonfinite=on_nonfinite,
        frame_of=frame_of,
        fix=(
            "The engine returned status ok for a walker with such positions: end such walkers "
            "with a non-ok status (the engine contract, docs/engines.md)"
        ),
    )
    counts = {
        DROPPED_ATTR: int((~keep[ok_rows]).sum()),
        "ended_nonfinite_frames_dropped": int((bad & ~data["status"]).sum()),
    }
    return keep, counts
