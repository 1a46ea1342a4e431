"""Measured numbers from one source: records written by a command, and the README's parts made from them.

Every number the README quotes about a run (how long the three commands take, what the default run's calibration
study found) lives in one committed file under ``docs/measured/``, written by ``tools/measure.py`` from a run it
timed (:data:`RECORDS`). The README's blocks between ``<!-- measured:<name>:begin ... -->`` and
``<!-- measured:<name>:end -->`` are rendered from those files (:func:`render_readme`; ``tools/measure.py readme``
rewrites them) and a unit test fails when they differ (:func:`stale_blocks`), so a number is never retyped.

Examples
--------
>>> duration(330.4), duration(59.4), duration(3725)
('5 min 30 s', '59 s', '1 h 2 min')
>>> text = "a\\n<!-- measured:x:begin -->\\nold\\n<!-- measured:x:end -->\\nb\\n"
>>> render_readme(text, {"x": "new"}).splitlines()[1:4]
['<!-- measured:x:begin -->', 'new', '<!-- measured:x:end -->']
"""

from __future__ import annotations

import json
import math
import os
import platform
import re
from pathlib import Path
from typing import Mapping

import pandas as pd

from westbench.errors import WestbenchError

#: The records, by name: the file under docs/measured/ and what the README's table calls the measurement.
RECORDS = {
    "default_run": "the embedded default on a fresh clone, setup from the pip cache included",
    "tests_fast": "the fast lane: lint, unit tests and doctests",
    "tests": "the whole suite, as CI runs it",
    "agents": "the agent benchmark: every task's gate, with the near misses of changed tasks and a rotation shard",
    "calibration_seeds": "the calibration study over several seeds, one after another",
}
#: The README's generated blocks.
BLOCKS = ("measured", "calibration")
MEASURED_DIR = Path("docs") / "measured"
_BLOCK = re.compile(
    r"(<!-- measured:(?P<name>[a-z_]+):begin[^>]*-->\n)(?P<body>.*?)(<!-- measured:(?P=name):end -->)", re.S
)


def duration(seconds: float) -> str:
    """A wall time as the README writes it: seconds under a minute, then minutes and seconds, then hours."""
    seconds = round(float(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60} min"


def host() -> dict:
    """The machine a measurement ran on: CPU model, cores, and the load average when it started."""
    model = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return {"cpu": model, "cores": os.cpu_count(), "load_average_at_start": None if load is None else round(load, 1)}


def sample_load(samples: list, done, every: float = 15.0) -> None:
    """Append the 1-minute load average to ``samples`` every ``every`` seconds until ``done`` (an Event) is set."""
    while True:
        samples.append(os.getloadavg()[0])
        if done.wait(every):
            return


def load_summary(samples) -> dict:
    """The mean and the highest of the load samples taken while a command ran (empty when there are none).

    Examples
    --------
    >>> load_summary([2.0, 3.0, 7.0]), load_summary([])
    ({'load_average_mean': 4.0, 'load_average_max': 7.0}, {})
    """
    if not samples:
        return {}
    return {"load_average_mean": round(sum(samples) / len(samples), 1), "load_average_max": round(max(samples), 1)}


def read_records(folder: str | Path = MEASURED_DIR) -> dict[str, dict]:
    """Every record of :data:`RECORDS` found in ``folder`` (``<name>.json``), by name."""
    folder = Path(folder)
    return {
        name: json.loads((folder / f"{name}.json").read_text())
        for name in RECORDS
        if (folder / f"{name}.json").is_file()
    }


def write_record(record: Mapping, name: str, folder: str | Path = MEASURED_DIR) -> Path:
    """Write one record (sorted keys, one per line, so a change reads as a small diff)."""
    if name not in RECORDS:
        raise WestbenchError(f"unknown measurement {name!r}; known: {', '.join(RECORDS)}")
    path = Path(folder) / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    return path


def _where(record: Mapping) -> str:
    machine = record.get("host") or {}
    parts = [record.get("date", ""), f"commit {record['commit']}" if record.get("commit") else ""]
    if machine.get("cores"):
        cpu = machine.get("cpu") or "CPU"
        parts.append(f"{machine['cores']} cores ({cpu})")
    if machine.get("load_average_mean") is not None:
        parts.append(
            f"load average {machine['load_average_mean']} during the run (at most {machine['load_average_max']})"
        )
    elif machine.get("load_average_at_start") is not None:
        parts.append(f"load {machine['load_average_at_start']} at the start")
    text = ", ".join(p for p in parts if p)
    if record.get("source"):
        text += f"; {record['source']}"
    return text


def _result(name: str, record: Mapping) -> str:
    wall = f"**{duration(record['wall_s'])}**" if record.get("wall_s") is not None else "not timed"
    if name == "default_run":
        dag = record.get("dag") or {}
        calibration = record.get("calibration") or {}
        text = f"{wall}; {dag.get('jobs')} jobs, {dag.get('job_seconds', 0):.0f} job-seconds"
        if calibration.get("rows"):
            text += f"; calibration: {calibration['agree']} of {calibration['rows']} expected verdicts agree"
        return text
    if name in ("tests", "tests_fast"):
        failed = record.get("failed") or 0
        return f"{wall}; {record.get('passed')} passed" + (f", {failed} failed" if failed else "")
    if name == "calibration_seeds":
        total = seeds_total(record.get("seeds") or [])
        return (
            f"{wall}; {len(record.get('seeds') or [])} seeds: {total['all_covered']} of {total['all_cells']} cells "
            f"with a known answer covered, {total['agree']} of {total['rows']} verdicts agree"
        )
    if name == "agents":
        recorded = record.get("near_misses_recorded_tasks")
        return (
            f"{wall}; {record.get('gated')} of {record.get('tasks')} tasks pass the gate; "
            f"{record.get('near_misses_caught')} of {record.get('near_misses')} near misses run caught"
            + (
                f"; {recorded} tasks' near misses all caught by the recorded full gate at the same inputs"
                if recorded
                else ""
            )
        )
    return wall


def measured_table(records: Mapping[str, Mapping]) -> str:
    """The README's "Measured" table: one row per record, with the command that measures it again."""
    lines = [
        "| what | measure again | result | when, where |",
        "|---|---|---|---|",
    ]
    for name, what in RECORDS.items():
        if name not in records:
            lines.append(f"| {what} | `.venv/bin/python tools/measure.py {name}` | not measured yet | |")
            continue
        record = records[name]
        again = f"`.venv/bin/python tools/measure.py {name}`"
        lines.append(f"| {what} (`{record['command']}`) | {again} | {_result(name, record)} | {_where(record)} |")
    return "\n".join(lines)


#: What the calibration numbers depend on besides the seed, said wherever they are shown.
MACHINE_NOTE = (
    "Every number depends on the machine as well as the seed: the study's runs (ground truth, own samples, WE) are "
    "chaotic trajectories, and another CPU (or torch and BLAS build) rounds their arithmetic otherwise, so the same "
    "seed there gives other numbers in every cell, drawn from the same distributions: compare the counts over "
    "seeds, not one seed's cells. On the same machine the same seed reproduces every number "
    "(`tests/workflow/test_calibration_reproducible.py`)."
)


def calibration_seed_summary(study: str | Path, seed: int, wall_s: float | None = None) -> dict:
    """One seed's line of the ``calibration_seeds`` record, from its study's ``calibration.json``
    (``results/calibration/<study>/``): agreement, coverage on the resolved and on all cells with a known answer,
    and which way the scores lean (:func:`westbench.calibration.coverage.interval_coverage`)."""
    result = json.loads((Path(study) / "calibration.json").read_text())
    coverage = result.get("interval_coverage") or {}
    return {
        "seed": int(seed),
        "wall_s": wall_s,
        "agreement": result.get("agreement") or {},
        "resolved": {"cells": coverage.get("cells"), "covered": coverage.get("covered")},
        "all_cells": {k: (coverage.get("all_cells") or {}).get(k) for k in ("cells", "covered")},
        "lean": coverage.get("lean") or {},
        "by_metric": {
            metric: {"all_cells": {k: (part.get("all_cells") or {}).get(k) for k in ("cells", "covered")}}
            for metric, part in (coverage.get("by_metric") or {}).items()
        },
        "null_within_noise": result.get("null_within_noise"),
    }


def seeds_total(seeds) -> dict:
    """The ``calibration_seeds`` record's seeds added up."""

    def add(path):
        total = 0
        for seed in seeds:
            value = seed
            for key in path:
                value = (value or {}).get(key) if isinstance(value, Mapping) else None
            total += int(value or 0)
        return total

    return {
        "resolved_cells": add(("resolved", "cells")),
        "resolved_covered": add(("resolved", "covered")),
        "all_cells": add(("all_cells", "cells")),
        "all_covered": add(("all_cells", "covered")),
        "above": add(("lean", "resolved", "above")),
        "below": add(("lean", "resolved", "below")),
        "all_above": add(("lean", "all_cells", "above")),
        "all_below": add(("lean", "all_cells", "below")),
        "missed_above": add(("lean", "all_cells", "uncovered_above")),
        "missed_below": add(("lean", "all_cells", "uncovered_below")),
        "rows": add(("agreement", "rows")),
        "agree": add(("agreement", "agree")),
        **{
            f"{metric}_{key}": add(("by_metric", metric, "all_cells", key))
            for metric in ("w1", "kl")
            for key in ("cells", "covered")
        },
    }


def _share(part: int, whole: int) -> str:
    return f"{part} of {whole}" + (f" ({part / whole:.0%})" if whole else "")


def seeds_block(record: Mapping) -> str:
    """The README's summary of the calibration study over seeds (``tools/measure.py calibration_seeds``): per seed
    and in all, the cells whose score holds its known answer within both sides' noise (resolved ones and all with
    a known answer), which way the scores lie from their answer, which way the misses lie, and the verdicts that
    agree; labelled with where it was measured and what varies between machines."""
    seeds = record.get("seeds") or []
    lines = [
        "| seed | resolved cells covered | all cells with a known answer covered | resolved scores above / below "
        "their answer | misses above / below their answer | verdicts that agree |",
        "|---|---|---|---|---|---|",
    ]
    for seed in [*seeds, None]:
        total = seeds_total(seeds if seed is None else [seed])
        label = "**all**" if seed is None else str(seed["seed"])
        every = _share(total["all_covered"], total["all_cells"])
        if total["w1_cells"] or total["kl_cells"]:
            every += (
                f": W1 {total['w1_covered']} of {total['w1_cells']}, KL {total['kl_covered']} of {total['kl_cells']}"
            )
        lines.append(
            f"| {label} | {_share(total['resolved_covered'], total['resolved_cells'])} | {every} | "
            f"{total['above']} / {total['below']} | {total['missed_above']} / {total['missed_below']} | "
            f"{total['agree']} of {total['rows']} |"
        )
    where = _where(record)
    return (
        f"Over {len(seeds)} seeds of the embedded default study (the seed its only change; "
        f"`.venv/bin/python tools/measure.py calibration_seeds`; {where}):\n\n"
        + "\n".join(lines)
        + "\n\n"
        + MACHINE_NOTE
    )


def calibration_block(folder: str | Path = MEASURED_DIR) -> str:
    """The README's calibration summary over seeds (``calibration_seeds.json``, :func:`seeds_block`) and the default
    run's table and result, from its ``calibration.csv`` and ``calibration.json`` copied beside the records
    (``tools/measure.py default_run``)."""
    from decimal import ROUND_CEILING, ROUND_FLOOR

    from westbench.report.calibration import HEADINGS, headline, headline_only, read_table
    from westbench.report.cells import number

    folder = Path(folder)
    seeds = folder / "calibration_seeds.json"
    summary = seeds_block(json.loads(seeds.read_text())) + "\n\n" if seeds.is_file() else ""
    table_path, summary_path = folder / "calibration.csv", folder / "calibration.json"
    if not table_path.is_file() or not summary_path.is_file():
        return summary + "Not measured yet: `.venv/bin/python tools/measure.py default_run` records it."
    table = read_table(table_path)
    result = json.loads(summary_path.read_text())
    names = [n for n in HEADINGS if n in set(table["distribution"])]
    lines = ["| engine | kind | " + " | ".join(HEADINGS[n] for n in names) + " |", "|---|---|" + "---|" * len(names)]
    for engine, group in headline_only(table).groupby("engine", sort=False):
        first = group.iloc[0]
        cells = []
        for name in names:
            row = group[group["distribution"] == name]
            if row.empty:
                cells.append("")
                continue
            row = row.iloc[0]
            value, low, high, floor = (float(row[c]) for c in ("value", "ci_low", "ci_high", "floor_high"))
            if math.isnan(value):
                cells.append(f"not estimable: {row['verdict']}")
                continue
            places = 2  # W1 of TICs and Rg: hundredths, as the study's verdicts need
            text = f"{number(value, places)}"
            if not (math.isnan(low) or math.isnan(high)):
                text += f" [{number(low, places, ROUND_FLOOR)}, {number(high, places, ROUND_CEILING)}]"
            if not math.isnan(floor):
                text += f" ≤ {number(floor, places, ROUND_CEILING)}"
            text += f": {row['verdict']}"
            if isinstance(row["expected"], str) and row["expected"]:
                text += f" ({row['expected']})"
            cells.append(text)
        lines.append(f"| `{engine}` | {first['kind']} | " + " | ".join(cells) + " |")
    training = result.get("training") or {}
    learned = [
        f"{engine} {t['initial_validation_loss']:.0f} to {t['best_validation_loss']:.0f}"
        for engine, t in training.items()
        if t.get("initial_validation_loss") is not None and t.get("best_validation_loss") is not None
    ]
    default = read_records(folder).get("default_run") or {}
    intro = (
        f"One of these studies, cell by cell: the default run's (seed {default['seed']}; "
        f"`.venv/bin/python tools/measure.py default_run`; {_where(default)}).\n\n"
        if default.get("seed") is not None
        else "The default run's study, cell by cell (`.venv/bin/python tools/measure.py default_run`).\n\n"
    )
    text = summary + intro + "\n".join(lines) + f"\n\nResult: {headline(result)}."
    if learned:
        text += f" Validation force loss of the trained CG models, start to best: {'; '.join(learned)} (kJ/mol/nm)²."
    return text


def blocks(folder: str | Path = MEASURED_DIR) -> dict[str, str]:
    """Every generated block of the README, by name, from the records in ``folder``."""
    return {"measured": measured_table(read_records(folder)), "calibration": calibration_block(folder)}


def render_readme(text: str, rendered: Mapping[str, str]) -> str:
    """``text`` with the body of each ``measured:<name>`` block replaced by ``rendered[name]``; a block the text
    lacks is an error naming it."""
    found = {m.group("name") for m in _BLOCK.finditer(text)}
    missing = sorted(set(rendered) - found)
    if missing:
        raise WestbenchError(
            f"README has no block {', '.join(missing)}: add '<!-- measured:<name>:begin -->' and "
            "'<!-- measured:<name>:end -->' lines where it goes"
        )
    return _BLOCK.sub(lambda m: m.group(1) + rendered[m.group("name")].rstrip("\n") + "\n" + m.group(4), text)


def stale_blocks(readme: str | Path, folder: str | Path = MEASURED_DIR) -> list[str]:
    """The README's generated blocks whose text differs from what the records give (empty when up to date)."""
    text = Path(readme).read_text()
    rendered = blocks(folder)
    current = {m.group("name"): m.group("body").rstrip("\n") for m in _BLOCK.finditer(text)}
    return [name for name, body in rendered.items() if current.get(name) != body.rstrip("\n")]


# ---- records from what a run left ------------------------------------------------------------------------------


def dag_cost(results: str | Path) -> dict:
    """Jobs and job-seconds of a DAG run from its Snakemake ``benchmark:`` files (``results/**/benchmarks/*.tsv``)."""
    files = [p for p in Path(results).rglob("*.tsv") if p.parent.name == "benchmarks"]
    seconds = sum(float(pd.read_csv(p, sep="\t")["s"].sum()) for p in files)
    return {"jobs": len(files), "job_seconds": round(seconds, 1)}


def calibration_summary(results: str | Path) -> dict:
    """Agreement of the calibration study (``results/calibration/<study>/calibration.json``), or {}."""
    found = sorted(Path(results).glob("calibration/*/calibration.json"))
    if not found:
        return {}
    return dict(json.loads(found[0].read_text()).get("agreement") or {})


_PYTEST = re.compile(r"=+ (?P<summary>.*?) in (?P<seconds>[0-9.]+)s")


def pytest_counts(output: str) -> dict:
    """Passed, failed, skipped and error counts, summed over every pytest summary line of ``output``.

    Examples
    --------
    >>> pytest_counts("== 867 passed, 2 skipped in 169.3s ==\\n== 129 passed, 1 failed in 1800.0s (0:30:00) ==")
    {'passed': 996, 'failed': 1, 'skipped': 2, 'errors': 0}
    """
    counts = {"passed": 0, "failed": 0, "skipped": 0, "errors": 0}
    for match in _PYTEST.finditer(output):
        for number_, word in re.findall(r"(\d+) (passed|failed|skipped|errors?)", match.group("summary")):
            counts["errors" if word.startswith("error") else word] += int(number_)
    return counts


def agents_summary(results: str | Path) -> dict:
    """Tasks, gated tasks and near misses caught, from the agent benchmark's ``gate.csv`` and ``gate.json``."""
    agents = Path(results) / "agents"
    gate = pd.read_csv(agents / "gate.csv")
    rate = json.loads((agents / "gate.json").read_text()).get("near_miss_catch_rate") or {}
    return {
        "tasks": int(len(gate)),
        "gated": int(gate["passed"].astype(bool).sum()),
        "near_misses": int(rate.get("near_misses") or 0),
        "near_misses_caught": int(rate.get("caught") or 0),
        # agents.gate.near_misses `changed`: the tasks whose near misses a recorded full gate caught at these inputs
        "near_misses_recorded_tasks": int(gate.get("near_misses_recorded", pd.Series(dtype=str)).notna().sum()),
    }
