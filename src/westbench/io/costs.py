"""The compute-per-iteration table (``cost.csv``) of every engine export: WE runs and external samples.

Columns: ``iteration``, ``segments``, ``ended_segments``, ``segment_wall_seconds``,
``segment_cpu_seconds``, ``coverage`` (with a coverage grid), ``cumulative_segments``,
``cumulative_wall_seconds``, ``cumulative_cpu_seconds``.

``coverage`` is the coverage of the ground truth's TIC 0/1 plane after each iteration,
counting the exported frames of that iteration and all before it that the metric suite
counts for its coverage column: frames of walkers that did not end early (``ok``) with a
weight above zero. Both use one grid (``metrics.coverage_bins``), so the last value equals
the coverage column of the ``we`` weighting when no iteration is discarded.

Examples
--------
>>> import numpy as np
>>> from westbench.geometry.coverage_grid import CoverageGrid
>>> grid = CoverageGrid(np.array([[0.0, 0.0], [1.0, 1.0]]), bins=2)
>>> frames = {"tics": np.array([[0.1, 0.1], [0.9, 0.9], [0.9, 0.9]]), "iteration": np.array([1, 2, 2]),
...           "weight": np.array([1.0, 0.0, 1.0]), "ok": np.array([1, 1, 0])}
>>> coverage_by_iteration(grid, frames, [1, 2])  # the second iteration's frames: weight 0, ended
[0.5, 0.5]
>>> rows = [{"iteration": 1, "segments": 2, "ended_segments": 0, "segment_wall_seconds": 1.0,
...          "segment_cpu_seconds": 2.0}, {"iteration": 2, "segments": 3, "ended_segments": 1,
...          "segment_wall_seconds": 1.5, "segment_cpu_seconds": 3.0}]
>>> cost_table(rows, coverage=[0.5, 0.5])["cumulative_segments"].tolist()
[2, 5]
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from westbench.geometry.coverage_grid import CoverageGrid


def coverage_by_iteration(grid: CoverageGrid, frames: Mapping, iterations: Iterable[int]) -> list[float]:
    """Cumulative coverage after each of ``iterations`` from frames with ``tics``, ``iteration``, ``weight``
    (and ``ok``, when walkers may end early): the frames the metric suite's coverage counts."""
    tics = np.asarray(frames["tics"])[:, :2]
    iteration = np.asarray(frames["iteration"])
    counted = np.asarray(frames["weight"]) > 0
    if "ok" in frames:
        counted &= np.asarray(frames["ok"]).astype(bool)
    return grid.cumulative(tics[counted & (iteration == n)] for n in iterations)


def cost_table(rows: Sequence[Mapping], coverage: Sequence[float] | None = None) -> pd.DataFrame:
    """``cost.csv`` from one row per iteration (iteration, segments, ended_segments, segment_wall_seconds,
    segment_cpu_seconds), the cumulative coverage per iteration and the running sums; with no row, those columns
    and no row (a run that finished no iteration), never a file without a header.

    >>> list(cost_table([]).columns)  # doctest: +NORMALIZE_WHITESPACE
    ['iteration', 'segments', 'ended_segments', 'segment_wall_seconds', 'segment_cpu_seconds',
     'cumulative_segments', 'cumulative_wall_seconds', 'cumulative_cpu_seconds']
    """
    cost = pd.DataFrame(list(rows))
    if not len(cost):  # a run with no finished iteration: the header alone, so that readers get the columns
        cost = pd.DataFrame(
            columns=[
                "iteration",
                "segments",
                "ended_segments",
                "segment_wall_seconds",
                "segment_cpu_seconds",
                *(["coverage"] if coverage is not None else []),
            ]
        )
    if coverage is not None and len(cost):
        cost["coverage"] = list(coverage)
    cost["cumulative_segments"] = cost["segments"].cumsum()
    cost["cumulative_wall_seconds"] = cost["segment_wall_seconds"].cumsum()
    cost["cumulative_cpu_seconds"] = cost["segment_cpu_seconds"].cumsum()
    return cost
