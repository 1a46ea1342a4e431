"""Tables over ground-truth runs.

Examples
--------
>>> import json, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "summary.json")
>>> _ = open(path, "w").write(json.dumps({"protein": "p", "start": "s0000", "platform": "CPU", "frames": 20,
...     "production_ns": 0.002, "ns_per_day": 12.5, "seed": 7, "atoms": 5000}))
>>> table = throughput_table([path])
>>> table["ns_per_day"].tolist()
[12.5]
>>> throughput_by_protein(table)[["protein", "runs", "median_ns_per_day"]].values.tolist()
[['p', 1, 12.5]]
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

import pandas as pd

COLUMNS = ["protein", "start", "platform", "atoms", "frames", "production_ns", "ns_per_day", "seed"]


def throughput_table(summary_paths: Iterable[str | Path]) -> pd.DataFrame:
    """One row per run: protein, start, platform, atoms, frames, ns simulated, ns/day, seed."""
    rows = [json.loads(Path(p).read_text()) for p in summary_paths]
    return pd.DataFrame([{c: row.get(c) for c in COLUMNS} for row in rows], columns=COLUMNS)


def throughput_by_protein(table: pd.DataFrame) -> pd.DataFrame:
    """Per protein and platform: runs, mean atoms, ns simulated in all, median and mean ns/day."""
    grouped = table.groupby(["protein", "platform"], sort=False)
    return grouped.agg(
        runs=("start", "count"),
        atoms=("atoms", "mean"),
        production_ns=("production_ns", "sum"),
        median_ns_per_day=("ns_per_day", "median"),
        mean_ns_per_day=("ns_per_day", "mean"),
    ).reset_index()
