"""Tables across proteins and engines in the published layout, and the compute to reach coverage.

- W1 and KL tables: one row per (protein, engine, weighting), one column per distribution
  (TIC 0-3, Rg, bonds, angles, dihedrals; KL adds the 2-D TIC 0/1), from the tidy
  ``metrics.csv`` of every run.
  With bootstrap intervals in the tidy rows, ``<distribution>_ci_low`` and
  ``<distribution>_ci_high`` columns follow (95 % percentile interval).
- Coverage table: one row per (protein, engine): final coverage of the ground truth's
  TIC 0/1 plane, the longest and aggregate simulated time (ns), and for each threshold
  the WE iteration, segments, CPU seconds and GPU seconds at which the run first reached
  it (empty when it never did), with the speed-up in segments and seconds relative to a
  reference engine (reference compute / this engine's compute; > 1 = faster).

Examples
--------
>>> import pandas as pd
>>> cost = pd.DataFrame({"iteration": [1, 2, 3], "coverage": [0.1, 0.3, 0.6], "cumulative_segments": [3, 9, 18],
...                      "cumulative_cpu_seconds": [1.0, 3.0, 6.0], "cumulative_wall_seconds": [1.0, 3.0, 6.0]})
>>> compute_to_coverage(cost, [0.2, 0.5, 0.8])["segments"].tolist()
[9.0, 18.0, nan]
"""

from __future__ import annotations

from typing import Iterable, Mapping

import numpy as np
import pandas as pd

from westbench.simulation.platforms import is_gpu_platform

DISTRIBUTIONS = ("tic0", "tic1", "tic2", "tic3", "rg", "bonds", "angles", "dihedrals", "tic01")
KEYS = ["protein", "engine", "weighting"]


def read_tidy(paths: Iterable) -> pd.DataFrame:
    """The tidy metric rows of many runs, one frame."""
    return pd.concat([pd.read_csv(path) for path in paths], ignore_index=True)


def divergence_table(tidy: pd.DataFrame, metric: str) -> pd.DataFrame:
    """``metric`` (w1 or kl) per (protein, engine, weighting) row and distribution column."""
    rows = tidy[tidy["metric"] == metric]
    table = rows.pivot_table(index=KEYS, columns="distribution", values="value", aggfunc="first", sort=False,
                             dropna=False)
    columns = [d for d in DISTRIBUTIONS if d in table.columns] + [d for d in table.columns if d not in DISTRIBUTIONS]
    table = table[columns]
    if "ci_low" in rows and rows["ci_low"].notna().any():
        for bound in ("ci_low", "ci_high"):
            limits = rows.pivot_table(index=KEYS, columns="distribution", values=bound, aggfunc="first", sort=False,
                                      dropna=False).reindex(index=table.index)
            for name in columns:
                table[f"{name}_{bound}"] = limits[name] if name in limits else np.nan
    return table.reset_index().rename_axis(columns=None)


def compute_to_coverage(cost: pd.DataFrame, thresholds: Iterable[float], gpu: bool = False) -> pd.DataFrame:
    """First iteration reaching each coverage threshold, with the segments and seconds spent until then.

    Parameters
    ----------
    cost : DataFrame
        A WE export's ``cost.csv`` (per iteration: coverage and cumulative segments/seconds).
    gpu : bool
        Whether the segments ran on a GPU platform: GPU seconds are then the segments'
        wall seconds, and zero otherwise.
    """
    rows = []
    for threshold in thresholds:
        reached = cost[cost["coverage"] >= threshold] if "coverage" in cost else cost.iloc[0:0]
        if len(reached):
            first = reached.iloc[0]
            rows.append({"threshold": threshold, "iteration": float(first["iteration"]),
                         "segments": float(first["cumulative_segments"]),
                         "cpu_seconds": float(first["cumulative_cpu_seconds"]),
                         "gpu_seconds": float(first["cumulative_wall_seconds"]) if gpu else 0.0})
        else:
            rows.append({"threshold": threshold, "iteration": np.nan, "segments": np.nan, "cpu_seconds": np.nan,
                         "gpu_seconds": np.nan})
    return pd.DataFrame(rows)


def coverage_table(tidy: pd.DataFrame, costs: Mapping[tuple[str, str], pd.DataFrame], thresholds: Iterable[float],
                   platform: str = "CPU", weighting: str = "we", reference_engine: str | None = None) -> pd.DataFrame:
    """Coverage per (protein, engine) and the compute to reach each threshold (published layout).

    ``costs`` maps (protein, engine) to its ``cost.csv``; engines without one (the ground
    truth against itself) get coverage only.
    """
    thresholds = list(thresholds)
    rows = tidy[(tidy["metric"] == "coverage") & (tidy["weighting"] == weighting)]
    gpu = is_gpu_platform(platform)
    records = []
    for _, row in rows.iterrows():
        record = {"protein": row["protein"], "engine": row["engine"], "coverage": row["value"]}
        for quantity in ("longest", "aggregate"):
            found = tidy[(tidy["metric"] == f"{quantity}_simulated_ps") & (tidy["protein"] == row["protein"])
                         & (tidy["engine"] == row["engine"])]
            record[f"{quantity}_simulated_ns"] = float(found["value"].iloc[0]) / 1000 if len(found) else np.nan
        cost = costs.get((row["protein"], row["engine"]))
        if cost is not None and len(cost):
            record.update(iterations=int(cost["iteration"].max()), segments=int(cost["cumulative_segments"].iloc[-1]),
                          cpu_seconds=float(cost["cumulative_cpu_seconds"].iloc[-1]),
                          gpu_seconds=float(cost["cumulative_wall_seconds"].iloc[-1]) if gpu else 0.0)
            for _, reached in compute_to_coverage(cost, thresholds, gpu).iterrows():
                percent = f"{round(100 * reached['threshold'])}%"
                for quantity in ("segments", "cpu_seconds", "gpu_seconds"):
                    record[f"{quantity}_to_{percent}"] = reached[quantity]
        records.append(record)
    table = pd.DataFrame(records)
    if reference_engine is not None and len(table):
        table = add_speedups(table, reference_engine, thresholds)
    counts = [c for c in table.columns if c == "iterations" or c.startswith("segments")]
    return table.astype({c: "Int64" for c in counts})


def add_speedups(table: pd.DataFrame, reference_engine: str, thresholds: Iterable[float]) -> pd.DataFrame:
    """Columns ``speedup_<quantity>_to_<p>%`` = reference engine's compute / this engine's, per protein.

    Examples
    --------
    >>> table = pd.DataFrame({"protein": ["p", "p"], "engine": ["implicit", "cg"], "segments_to_20%": [100.0, 10.0]})
    >>> add_speedups(table, "implicit", [0.2])["speedup_segments_to_20%"].tolist()
    [1.0, 10.0]
    """
    table = table.copy()
    for threshold in thresholds:
        percent = f"{round(100 * threshold)}%"
        for quantity in ("segments", "cpu_seconds", "gpu_seconds"):
            column = f"{quantity}_to_{percent}"
            if column not in table:
                continue
            values = table[column].astype(float)
            reference = table["protein"].map(
                table[table["engine"] == reference_engine].set_index("protein")[column].astype(float))
            with np.errstate(divide="ignore", invalid="ignore"):
                table[f"speedup_{column}"] = np.where(values > 0, reference / values, np.nan)
    return table
