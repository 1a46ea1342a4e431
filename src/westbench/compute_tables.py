"""Tables for cluster admins: what each rule asks the scheduler for, and what its jobs measured.

- :func:`resource_requests`: per rule, the partition, GPUs, cores, memory and runtime a SLURM
  profile requests (its ``set-resources`` over its ``default-resources``) and the threads.
- :func:`summarize_by_rule`: per rule, the jobs, wall seconds (total, mean, max), peak memory (max
  RSS) and CPU time from the ``benchmark:`` files Snakemake wrote (:func:`read_benchmarks`).

Examples
--------
>>> profile = {"default-resources": {"slurm_partition": "cpu", "mem_mb": 4000, "runtime": 30},
...            "set-resources": {"groundtruth_run": {"slurm_partition": "gpu", "gpu": 1, "runtime": 180}}}
>>> table = resource_requests(profile, ["groundtruth_run", "metrics"])
>>> table.set_index("rule").loc["groundtruth_run", ["partition", "gpu", "runtime_min", "mem_mb"]].astype(str).tolist()
['gpu', '1', '180', '4000']
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Mapping

import pandas as pd

COLUMNS = {"slurm_partition": "partition", "gpu": "gpu", "gpu_model": "gpu_model", "cpus_per_task": "cpus_per_task",
           "mem_mb": "mem_mb", "runtime": "runtime_min"}


def resource_requests(profile: Mapping, rules: Iterable[str]) -> pd.DataFrame:
    """Per rule, the resources a profile requests (rule entries over the defaults)."""
    defaults = dict(profile.get("default-resources") or {})
    per_rule = profile.get("set-resources") or {}
    threads = profile.get("set-threads") or {}
    rows = []
    for rule in sorted(rules):
        resources = {**defaults, **per_rule.get(rule, {})}
        row = {"rule": rule, **{name: resources.get(key, 0 if key == "gpu" else None) for key, name in COLUMNS.items()}}
        row["threads"] = threads.get(rule, 1)
        rows.append(row)
    return pd.DataFrame(rows)


def read_benchmarks(paths: Iterable[str | Path]) -> pd.DataFrame:
    """Every row of Snakemake ``benchmark:`` files (s, max_rss, cpu_time, ...) with the file's stem."""
    frames = [pd.read_csv(path, sep="\t").assign(file=Path(path).stem) for path in paths]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["file", "s", "max_rss", "cpu_time"])


def summarize_by_rule(data: pd.DataFrame, rules: Iterable[str]) -> pd.DataFrame:
    """Group benchmark rows by the rule their file belongs to (the longest rule name the file starts with).

    Examples
    --------
    >>> data = pd.DataFrame({"file": ["we_run_implicit", "we_run_explicit", "we_export_implicit"],
    ...                      "s": [10.0, 30.0, 1.0], "max_rss": [100.0, 300.0, 50.0], "cpu_time": [9.0, 29.0, 1.0]})
    >>> summarize_by_rule(data, ["we_run", "we_export", "we"])[["rule", "jobs", "wall_s_total", "max_rss_mb"]].values.tolist()
    [['we_export', 1, 1.0, 50.0], ['we_run', 2, 40.0, 300.0]]
    """
    names = sorted(rules, key=len, reverse=True)

    def rule_of(stem: str) -> str:
        return next((r for r in names if stem == r or stem.startswith(r + "_")), stem)

    data = data.assign(rule=data["file"].map(rule_of))
    grouped = data.groupby("rule")
    summary = pd.DataFrame({
        "jobs": grouped.size(),
        "wall_s_total": grouped["s"].sum().round(1),
        "wall_s_mean": grouped["s"].mean().round(1),
        "wall_s_max": grouped["s"].max().round(1),
        "max_rss_mb": grouped["max_rss"].max().round(1) if "max_rss" in data else None,
        "cpu_time_s": grouped["cpu_time"].sum().round(1) if "cpu_time" in data else None,
    })
    return summary.reset_index()
