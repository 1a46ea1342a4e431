"""Pool independent WE replicas of one engine into one export: one ``frames.h5`` and one ``cost.csv``.

With ``we.replicas`` > 1 an engine runs several independent WE simulations (each its own seed and
folder, ``results/<protein>/we/<engine>/replica_<k>/``). The metric suite scores them as one sample
and resamples whole replicas for its intervals (:func:`westbench.metrics.resampling.resampling_units`
reads the ``replica`` field), so the export joins them:

- frames: every replica's frames, with a ``replica`` field (int64, 0..n-1) and ``traj`` renumbered
  so continuous pieces stay distinct (:func:`westbench.io.frames.concatenate`). Within a replica each
  iteration's weights sum to one, as in a single run; replica ``r`` with ``I_r`` iterations is scaled by
  ``mean(I) / (n I_r)``, so every replica carries the same total weight and, when all replicas ran the
  same number of iterations (the usual ``max_iterations`` stop), each iteration of the pooled file
  sums to one again (each replica contributing ``1/n``).
- cost: per iteration, segments, ended segments and seconds summed over the replicas that ran it,
  ``replicas`` = how many did, and the coverage of the union of all replicas' frames up to that
  iteration on the one coverage grid (:func:`westbench.io.costs.coverage_by_iteration`).

One replica is exported exactly as before (:func:`westbench.we.export.export_run`, no ``replica``
field).

Examples
--------
>>> import numpy as np
>>> def replica(iterations, seed):
...     rng = np.random.default_rng(seed)
...     n = 2 * iterations  # two one-frame segments per iteration, weights 0.25 and 0.75
...     return {"ca": rng.normal(size=(n, 3, 3)), "weight": np.tile([0.25, 0.75], iterations),
...             "traj": np.arange(n), "time_ps": np.ones(n), "iteration": np.repeat(np.arange(1, iterations + 1), 2),
...             "tics": rng.normal(size=(n, 2)), "ok": np.ones(n, np.int8)}
>>> pooled = pool_frames([replica(2, 0), replica(2, 1), replica(2, 2)])
>>> pooled["replica"].tolist()
[0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]
>>> # each pooled iteration sums to one
>>> [round(float(pooled["weight"][pooled["iteration"] == n].sum()), 12) for n in (1, 2)]
[1.0, 1.0]
>>> len(np.unique(pooled["traj"]))  # 12 distinct pieces
12
>>> rows = pool_cost_rows([[{"iteration": 1, "segments": 2, "ended_segments": 0, "segment_wall_seconds": 1.0,
...                          "segment_cpu_seconds": 1.0}],
...                        [{"iteration": 1, "segments": 3, "ended_segments": 1, "segment_wall_seconds": 2.0,
...                          "segment_cpu_seconds": 2.5}]])
>>> rows[0]["segments"], rows[0]["ended_segments"], rows[0]["segment_cpu_seconds"], rows[0]["replicas"]
(5, 1, 3.5, 2)
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from westbench.config import default
from westbench.io.costs import cost_table, coverage_by_iteration
from westbench.io.frames import DROPPED_ATTR, Frames, concatenate, read_frames, write_frames

log = logging.getLogger(__name__)

#: The per-iteration columns of a replica's cost rows that add up over replicas.
SUMMED = ("segments", "ended_segments", "segment_wall_seconds", "segment_cpu_seconds")


def replica_weight_factors(iterations: Sequence[int]) -> np.ndarray:
    """Scale of each replica's exported weights: ``mean(I) / (n I_r)`` for replica ``r`` with ``I_r`` iterations.

    Every replica then carries the same total weight; with equal iteration counts the factor is ``1/n``,
    so each pooled iteration's weights sum to one.

    Examples
    --------
    >>> replica_weight_factors([4, 4]).tolist()
    [0.5, 0.5]
    >>> replica_weight_factors([2, 6]).tolist()  # totals 2 x 1.0 and 6 x (1/3): equal
    [1.0, 0.3333333333333333]
    """
    counts = np.asarray(iterations, dtype=np.float64)
    if len(counts) == 0 or np.any(counts <= 0):
        raise ValueError(f"every replica needs at least one iteration, got {list(iterations)}")
    return counts.mean() / (len(counts) * counts)


def pool_frames(parts: Sequence[Mapping], ids: Sequence[int] | None = None) -> dict:
    """Join the exported frames of several replicas (in replica order) into one sample.

    Parameters
    ----------
    parts : sequence of mapping
        Each replica's frames (the frames contract plus the export's fields), with ``weight`` as exported:
        each iteration's weights sum to one.
    ids : sequence of int, optional
        The replica id of each part (default 0..n-1).

    Returns
    -------
    dict
        The datasets of all replicas, concatenated; ``replica`` (int64) numbers the part, ``traj`` is
        renumbered so pieces stay distinct and ``weight`` is scaled by :func:`replica_weight_factors`.
    """
    if not parts:
        raise ValueError("no replica to pool")
    iterations = [len(np.unique(np.asarray(part["iteration"]))) for part in parts]
    factors = replica_weight_factors([max(n, 1) for n in iterations])
    scaled = []
    for index, part, factor in zip(range(len(parts)) if ids is None else ids, parts, factors):
        part = Frames(part)
        part["weight"] = np.asarray(part["weight"], dtype=np.float64) * factor
        part["replica"] = np.full(len(part["weight"]), int(index), dtype=np.int64)
        scaled.append(part)
    return concatenate(scaled)


def pool_cost_rows(replica_rows: Sequence[Sequence[Mapping]]) -> list[dict]:
    """Per iteration, the :data:`SUMMED` columns added over the replicas that ran it, and ``replicas``.

    Iterations are the union of the replicas' (a replica stopped early contributes to the iterations it ran).
    """
    pooled: dict[int, dict] = {}
    for rows in replica_rows:
        for row in rows:
            n = int(row["iteration"])
            entry = pooled.setdefault(n, {"iteration": n, **{key: 0 for key in SUMMED}, "replicas": 0})
            for key in SUMMED:
                entry[key] += row[key]
            entry["replicas"] += 1
    return [pooled[n] for n in sorted(pooled)]


def export_replicas(
    run_dirs: Sequence[str | Path],
    frames_path: str | Path,
    cost_path: str | Path,
    *,
    save_interval_ps: float,
    tica=None,
    coverage_grid=None,
    attrs: Mapping | None = None,
    on_nonfinite: str = default("on_nonfinite"),
) -> dict:
    """Export one engine's WE runs (one folder per replica, in replica order) as one ``frames.h5`` and ``cost.csv``.

    Parameters
    ----------
    run_dirs : sequence of path
        The replicas' run folders (west.h5, segments/). One folder: exported as a single run
        (:func:`westbench.we.export.export_run`), unchanged.
    frames_path, cost_path : path
        The pooled export.
    save_interval_ps, tica, attrs, on_nonfinite
        As for :func:`~westbench.we.export.export_run`; the pooled file's ``nonfinite_frames_dropped`` is the
        replicas' sum.
    coverage_grid : CoverageGrid, optional
        With ``tica``: ``cost.csv`` gets the cumulative coverage of the union of the replicas' frames.

    Returns
    -------
    dict
        ``replicas`` pooled (a replica without a finished iteration is left out, with a warning),
        ``iterations`` (the longest replica's) and ``frames`` exported.
    """
    from westbench.we.export import export_run

    run_dirs = [Path(folder) for folder in run_dirs]
    if len(run_dirs) == 1:
        summary = export_run(
            run_dirs[0],
            frames_path,
            cost_path,
            save_interval_ps=save_interval_ps,
            tica=tica,
            coverage_grid=coverage_grid,
            attrs=attrs,
            on_nonfinite=on_nonfinite,
        )
        return {"replicas": 1, **summary}
    parts, replica_rows, ids, dropped = [], [], [], 0
    Path(frames_path).parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=Path(frames_path).parent, prefix=".replicas-") as scratch:
        for index, folder in enumerate(run_dirs):
            frames_k, cost_k = Path(scratch) / f"frames_{index}.h5", Path(scratch) / f"cost_{index}.csv"
            summary = export_run(
                folder, frames_k, cost_k, save_interval_ps=save_interval_ps, tica=tica, on_nonfinite=on_nonfinite
            )
            log.info(
                "replica %d (%s): %d iterations, %d frames", index, folder, summary["iterations"], summary["frames"]
            )
            if not summary["frames"]:
                log.warning("replica %d (%s) has no finished iteration: left out of the export", index, folder)
                continue
            parts.append(read_frames(frames_k))
            dropped += int(parts[-1].attrs.get(DROPPED_ATTR, 0) or 0)
            replica_rows.append(pd.read_csv(cost_k).to_dict("records"))
            ids.append(index)
        if not parts:  # nothing to pool: the first replica's (empty) export, as a single run's would be
            return {
                "replicas": 0,
                **export_run(
                    run_dirs[0],
                    frames_path,
                    cost_path,
                    save_interval_ps=save_interval_ps,
                    tica=tica,
                    attrs=attrs,
                    on_nonfinite=on_nonfinite,
                ),
            }
    data = pool_frames(parts, ids)
    rows = pool_cost_rows(replica_rows)
    coverage = None
    if coverage_grid is not None and "tics" in data:
        coverage = coverage_by_iteration(coverage_grid, data, [row["iteration"] for row in rows])
    required = {name: data.pop(name) for name in ("ca", "time_ps", "weight", "traj", "iteration")}
    write_frames(frames_path, **required, attrs={**(attrs or {}), "replicas": ids, DROPPED_ATTR: dropped}, **data)
    cost_table(rows, coverage).to_csv(cost_path, index=False)
    return {"replicas": len(parts), "iterations": len(rows), "frames": int(len(required["ca"]))}
