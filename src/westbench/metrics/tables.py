"""Tables across proteins and engines in the published layout, and the compute to reach coverage.

- W1 and KL tables (:func:`divergence_table`): one row per (protein, engine, weighting), one
  column per distribution (TIC 0-3, Rg, bonds, angles, dihedrals, and ``tic01``: the 2-D TIC 0/1
  value), from the tidy ``metrics.csv`` of every run. After the value columns, per distribution
  (:data:`FIELDS`): ``<d>_ci_low`` / ``<d>_ci_high`` (the 95 % BCa interval over independent units),
  ``<d>_bias`` (bootstrap mean minus estimate), ``<d>_floor`` / ``<d>_floor_low`` /
  ``<d>_floor_high`` (the noise floor: the ground truth against itself at the model's sample size,
  median and 2.5-97.5 % range), ``<d>_verdict`` ("separated", "within noise" or "undetermined")
  and ``<d>_note`` (why a value, interval, floor or verdict is missing). The last column,
  ``sanity_failed``: the engine's failed sanity checks (``collapse``, ``chirality``, ``units``,
  ``exploded``; ";"-joined, "" when none passed or none was run: :mod:`westbench.geometry.sanity`), from
  the tidy ``sanity`` ``failed`` row. Tidy rows of the older format, without those columns, give the same
  table with them empty.
- Verdict summary (:func:`verdict_summary`, from :mod:`westbench.presentation.verdicts`): per row of a divergence
  table, how many distributions are separated from the noise floor, within it, or undetermined.
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

from westbench.presentation.verdicts import (
    DISTRIBUTIONS,
    ENGINE_FIELDS,
    FIELDS,
    KEYS,
    TEXT_FIELDS,
    VERDICTS,  # noqa: F401  (the tables' format)
    distributions_of,
    verdict_summary,
)
from westbench.runtime.devices import is_gpu_platform

__all__ = [
    "DISTRIBUTIONS",
    "ENGINE_FIELDS",
    "FIELDS",
    "KEYS",
    "TEXT_FIELDS",
    "VERDICTS",
    "add_speedups",
    "compute_to_coverage",
    "coverage_table",
    "distributions_of",
    "divergence_table",
    "read_tidy",
    "verdict_summary",
]


def read_tidy(paths: Iterable) -> pd.DataFrame:
    """The tidy metric rows of many runs, one frame; ``verdict`` and ``note`` as text ("" where empty)."""
    tidy = pd.concat([pd.read_csv(path) for path in paths], ignore_index=True)
    for column in TEXT_FIELDS:
        if column in tidy:
            tidy[column] = tidy[column].astype(object).where(tidy[column].notna(), "").astype(str)
    return tidy


def divergence_table(tidy: pd.DataFrame, metric: str) -> pd.DataFrame:
    """``metric`` (w1 or kl) per (protein, engine, weighting) row and distribution column, with the
    interval, bias, noise floor, verdict and note of each value (:data:`FIELDS`; empty where the tidy
    rows do not have them).

    Examples
    --------
    >>> tidy = pd.DataFrame({"protein": ["p", "p"], "engine": ["e", "e"], "weighting": ["we", "we"],
    ...                      "distribution": ["tic0", "rg"], "metric": ["w1", "w1"], "value": [0.5, None],
    ...                      "ci_low": [0.4, None], "ci_high": [0.9, None], "floor": [0.1, None],
    ...                      "floor_high": [0.3, None], "verdict": ["separated", "undetermined"],
    ...                      "note": ["", "no ground-truth frame has a finite Rg"]})
    >>> row = divergence_table(tidy, "w1").iloc[0]
    >>> [float(row[c]) for c in ("tic0", "tic0_ci_low", "tic0_ci_high", "tic0_floor_high")], row["tic0_verdict"]
    ([0.5, 0.4, 0.9, 0.3], 'separated')
    >>> row["rg_verdict"], row["rg_note"], row["sanity_failed"]
    ('undetermined', 'no ground-truth frame has a finite Rg', '')
    >>> failed = pd.DataFrame({"protein": ["p"], "engine": ["e"], "weighting": [""], "distribution": ["sanity"],
    ...                        "metric": ["failed"], "value": [2.0], "note": ["chirality;units"]})
    >>> divergence_table(pd.concat([tidy, failed]), "w1")["sanity_failed"].tolist()
    ['chirality;units']
    >>> old = tidy[["protein", "engine", "weighting", "distribution", "metric", "value"]]  # the older format
    >>> table = divergence_table(old, "w1")
    >>> table["tic0"].tolist(), table["tic0_verdict"].tolist(), bool(table["tic0_ci_low"].isna().all())
    ([0.5], [''], True)
    """
    rows = tidy[tidy["metric"] == metric]
    table = rows.pivot_table(
        index=KEYS, columns="distribution", values="value", aggfunc="first", sort=False, dropna=False
    )
    columns = [d for d in DISTRIBUTIONS if d in table.columns] + [d for d in table.columns if d not in DISTRIBUTIONS]
    table = table[columns].astype(float)
    index = pd.MultiIndex.from_frame(rows[KEYS]).unique()
    table = table.reindex(index=index)
    extra = {}
    for name in columns:
        of = rows[rows["distribution"] == name].drop_duplicates(KEYS).set_index(KEYS)
        for part in FIELDS:
            column = f"{name}_{part}"
            if part not in of:
                extra[column] = pd.Series("" if part in TEXT_FIELDS else np.nan, index=index)
            elif part in TEXT_FIELDS:
                extra[column] = of[part].reindex(index).astype("string").fillna("").astype(object)
            else:
                extra[column] = pd.to_numeric(of[part], errors="coerce").reindex(index)
    table = pd.concat([table, pd.DataFrame(extra, index=index)], axis=1).reset_index().rename_axis(columns=None)
    table["sanity_failed"] = sanity_failed(tidy, table)
    return table


def sanity_failed(tidy: pd.DataFrame, table: pd.DataFrame) -> list[str]:
    """Per row of ``table``, its engine's failed sanity checks from the tidy ``sanity`` ``failed`` rows (their
    ``note``; "" for engines without one: none failed, or a record from before the checks)."""
    rows = tidy[(tidy["distribution"] == "sanity") & (tidy["metric"] == "failed")]
    if "note" not in rows or not len(rows):
        return [""] * len(table)
    notes = rows.drop_duplicates(["protein", "engine"]).set_index(["protein", "engine"])["note"]
    notes = notes.astype(object).where(notes.notna(), "")
    return [str(notes.get((protein, engine), "")) for protein, engine in zip(table["protein"], table["engine"])]


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
            rows.append(
                {
                    "threshold": threshold,
                    "iteration": float(first["iteration"]),
                    "segments": float(first["cumulative_segments"]),
                    "cpu_seconds": float(first["cumulative_cpu_seconds"]),
                    "gpu_seconds": float(first["cumulative_wall_seconds"]) if gpu else 0.0,
                }
            )
        else:
            rows.append(
                {
                    "threshold": threshold,
                    "iteration": np.nan,
                    "segments": np.nan,
                    "cpu_seconds": np.nan,
                    "gpu_seconds": np.nan,
                }
            )
    return pd.DataFrame(rows)


def coverage_table(
    tidy: pd.DataFrame,
    costs: Mapping[tuple[str, str], pd.DataFrame],
    thresholds: Iterable[float],
    platform: str = "CPU",
    weighting: str = "we",
    reference_engine: str | None = None,
) -> pd.DataFrame:
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
            found = tidy[
                (tidy["metric"] == f"{quantity}_simulated_ps")
                & (tidy["protein"] == row["protein"])
                & (tidy["engine"] == row["engine"])
            ]
            record[f"{quantity}_simulated_ns"] = float(found["value"].iloc[0]) / 1000 if len(found) else np.nan
        cost = costs.get((row["protein"], row["engine"]))
        if cost is not None and len(cost):
            record.update(
                iterations=int(cost["iteration"].max()),
                segments=int(cost["cumulative_segments"].iloc[-1]),
                cpu_seconds=float(cost["cumulative_cpu_seconds"].iloc[-1]),
                gpu_seconds=float(cost["cumulative_wall_seconds"].iloc[-1]) if gpu else 0.0,
            )
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
                table[table["engine"] == reference_engine].set_index("protein")[column].astype(float)
            )
            with np.errstate(divide="ignore", invalid="ignore"):
                table[f"speedup_{column}"] = np.where(values > 0, reference / values, np.nan)
    return table
