"""Tables for cluster admins: what each rule asks the scheduler for, and what its jobs measured.

- :func:`resource_requests`: per rule, the partition, GPUs, cores, memory and runtime a SLURM
  profile requests (its ``set-resources`` over its ``default-resources``) and the threads.
- :func:`summarize_by_rule`: per rule, the jobs, wall seconds (total, mean, max), peak memory (max
  RSS) and CPU time from the ``benchmark:`` files Snakemake wrote (:func:`read_benchmarks`), each file
  attributed to the rule whose ``benchmark:`` pattern it matches (:func:`benchmark_files`), never to a
  name guessed from the file's.

Examples
--------
>>> profile = {"default-resources": {"slurm_partition": "cpu", "mem_mb": 4000, "runtime": 30},
...            "set-resources": {"groundtruth_run": {"slurm_partition": "gpu", "gpu": 1, "runtime": 180}}}
>>> table = resource_requests(profile, ["groundtruth_run", "metric_suite"])
>>> table.set_index("rule").loc["groundtruth_run", ["partition", "gpu", "runtime_min", "mem_mb"]].astype(str).tolist()
['gpu', '1', '180', '4000']
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, Mapping

import pandas as pd

COLUMNS = {
    "slurm_partition": "partition",
    "gpu": "gpu",
    "gpu_model": "gpu_model",
    "cpus_per_task": "cpus_per_task",
    "mem_mb": "mem_mb",
    "runtime": "runtime_min",
}


def gres_gpus(gres: str | None) -> int:
    """GPUs in a generic-resource request (``gpu:1``, ``gpu:a100:2``; 0 for none or another resource).

    Examples
    --------
    >>> gres_gpus("gpu:1"), gres_gpus("gpu:a100:2"), gres_gpus(None), gres_gpus("tmpdisk:10")
    (1, 2, 0, 0)
    """
    parts = str(gres or "").split(":")
    return int(parts[-1]) if parts[0] == "gpu" and len(parts) > 1 and parts[-1].isdigit() else 0


def resource_requests(profile: Mapping, rules: Iterable[str]) -> pd.DataFrame:
    """Per rule, the resources a profile requests (rule entries over the defaults).

    A packed rule asks for its GPU with ``gres`` (one GPU its group's jobs share): ``gpu`` counts it and
    ``gres`` says so. Runtime and memory are blank where the profile leaves them to the plan (rules/cluster.smk
    sizes each job from the measured basis: ``tools/slurm/plan.py summary`` prints them per job).
    """
    defaults = dict(profile.get("default-resources") or {})
    per_rule = profile.get("set-resources") or {}
    threads = profile.get("set-threads") or {}
    rows = []
    for rule in sorted(rules):
        resources = {**defaults, **per_rule.get(rule, {})}
        row = {"rule": rule, **{name: resources.get(key, 0 if key == "gpu" else None) for key, name in COLUMNS.items()}}
        row["gpu"] = max(int(row["gpu"] or 0), gres_gpus(resources.get("gres")))
        row["gres"] = resources.get("gres")
        row["threads"] = threads.get(rule, 1)
        rows.append(row)
    return pd.DataFrame(rows)


_WILDCARD = re.compile(r"\{\s*(\w+)\s*(?:,\s*((?:[^{}]|\{[^{}]*\})*))?\}")


def _pattern_regex(pattern: str) -> tuple[re.Pattern, int]:
    """A Snakemake file pattern as a regex (a wildcard is one path component unless constrained) and its
    count of literal characters, the tie-breaker between patterns that both match a file."""
    parts, literal, end = [], 0, 0
    for match in _WILDCARD.finditer(pattern):
        parts.append(re.escape(pattern[end : match.start()]))
        literal += match.start() - end
        parts.append(f"(?:{match.group(2)})" if match.group(2) else "[^/]+")
        end = match.end()
    parts.append(re.escape(pattern[end:]))
    literal += len(pattern) - end
    return re.compile("".join(parts)), literal


def benchmark_files(patterns: Mapping[str, str], root: str | Path = ".") -> list[tuple[str, Path]]:
    """(rule, file) for every existing file under ``root`` that matches a rule's ``benchmark:`` pattern.

    A file two patterns match belongs to the one with more literal characters (the more specific).

    Examples
    --------
    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> for name in ["agents/trial_t1_oracle_none_1.tsv", "benchmarks/cg_train_all.tsv", "p/cg_train_small.tsv"]:
    ...     (root / name).parent.mkdir(parents=True, exist_ok=True); _ = (root / name).write_text("s\\n1\\n")
    >>> patterns = {"agent_trial": "agents/trial_{task}_{agent}_{model}_{attempt}.tsv",
    ...             "cg_train_all": "benchmarks/cg_train_all.tsv", "cg_train": "{protein}/cg_train_{preset}.tsv"}
    >>> [(rule, path.relative_to(root).as_posix()) for rule, path in benchmark_files(patterns, root)]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('agent_trial', 'agents/trial_t1_oracle_none_1.tsv'), ('cg_train_all', 'benchmarks/cg_train_all.tsv'),
     ('cg_train', 'p/cg_train_small.tsv')]
    """
    root = Path(root)
    owner: dict[Path, tuple[int, str]] = {}
    for rule, pattern in patterns.items():
        regex, literal = _pattern_regex(pattern)
        for path in root.glob(_WILDCARD.sub("*", pattern)):
            if regex.fullmatch(path.relative_to(root).as_posix()) and literal > owner.get(path, (-1, ""))[0]:
                owner[path] = (literal, rule)
    return sorted(((rule, path) for path, (_, rule) in owner.items()), key=lambda item: str(item[1]))


def read_benchmarks(files: Iterable[tuple[str, str | Path]]) -> pd.DataFrame:
    """Every row of Snakemake ``benchmark:`` files (s, max_rss, cpu_time, ...) with the rule that wrote it."""
    frames = [pd.read_csv(path, sep="\t").assign(rule=rule, file=Path(path).stem) for rule, path in files]
    return (
        pd.concat(frames, ignore_index=True)
        if frames
        else pd.DataFrame(columns=["rule", "file", "s", "max_rss", "cpu_time"])
    )


def summarize_by_rule(data: pd.DataFrame) -> pd.DataFrame:
    """Per rule: jobs, wall seconds (total, mean, max), peak memory and CPU time of its benchmark rows.

    Examples
    --------
    >>> data = pd.DataFrame({"rule": ["we_run", "we_run", "we_export"], "s": [10.0, 30.0, 1.0],
    ...                      "max_rss": [100.0, 300.0, 50.0], "cpu_time": [9.0, 29.0, 1.0]})
    >>> summarize_by_rule(data)[["rule", "jobs", "wall_s_total", "max_rss_mb"]].values.tolist()
    [['we_export', 1, 1.0, 50.0], ['we_run', 2, 40.0, 300.0]]
    """
    grouped = data.groupby("rule")
    summary = pd.DataFrame(
        {
            "jobs": grouped.size(),
            "wall_s_total": grouped["s"].sum().round(1),
            "wall_s_mean": grouped["s"].mean().round(1),
            "wall_s_max": grouped["s"].max().round(1),
            "max_rss_mb": grouped["max_rss"].max().round(1) if "max_rss" in data else None,
            "cpu_time_s": grouped["cpu_time"].sum().round(1) if "cpu_time" in data else None,
        }
    )
    return summary.reset_index()
