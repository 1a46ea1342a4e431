"""Composition of the agent task suite from its tags, and results broken down by tag.

Every task's ``task.toml`` carries ``[metadata]`` tags: ``difficulty``, ``category``, ``packages``
(a list), ``system`` and ``method``. This module reads them into one table (one row per task),
counts tasks per tag value (the composition table and figure of the report and README), and splits
a table of trials by those tags (the leaderboard per package, method, ...). A task written
elsewhere without the tags still counts, as ``unknown``.

Examples
--------
>>> import tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> for name, difficulty, packages in (("a", "easy", '["gromacs"]'), ("b", "hard", '["gromacs", "parmed"]')):
...     _ = (root / name).mkdir()
...     _ = (root / name / "task.toml").write_text(
...         f'[metadata]\\ndifficulty = "{difficulty}"\\ncategory = "analysis"\\npackages = {packages}\\n'
...         'system = "peptide"\\nmethod = "analysis"\\n')
>>> suite = suite_composition(root)
>>> suite[["task", "difficulty", "packages"]].to_dict("records")  # doctest: +NORMALIZE_WHITESPACE
[{'task': 'a', 'difficulty': 'easy', 'packages': ('gromacs',)},
 {'task': 'b', 'difficulty': 'hard', 'packages': ('gromacs', 'parmed')}]
>>> counts = composition_table(suite)
>>> counts[counts["tag"] == "package"][["value", "tasks"]].to_dict("records")
[{'value': 'gromacs', 'tasks': 2}, {'value': 'parmed', 'tasks': 1}]
>>> import pandas as pd
>>> trials = pd.DataFrame({"task": ["a", "b"], "agent": ["x", "x"], "correctness": [1.0, 0.5], "passed": [True, False]})
>>> table = breakdown_by_tag(trials, suite, tags=("difficulty",))
>>> table[["value", "trials", "mean_correctness", "pass_rate"]].to_dict("records")  # doctest: +NORMALIZE_WHITESPACE
[{'value': 'easy', 'trials': 1, 'mean_correctness': 1.0, 'pass_rate': 1.0},
 {'value': 'hard', 'trials': 1, 'mean_correctness': 0.5, 'pass_rate': 0.0}]
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Iterable, Sequence

import pandas as pd

TAGS = ("difficulty", "category", "package", "system", "method")
DIFFICULTIES = ("easy", "medium", "hard")
UNKNOWN = "unknown"


class CompositionError(ValueError):
    """A task's tags cannot be read."""


def task_tags(task_dir: str | Path) -> dict:
    """The ``[metadata]`` tags of one task (``unknown`` where a tag is missing) and its base image.

    Raises
    ------
    CompositionError
        When task.toml is missing or not TOML, or ``packages`` is not a list of strings; the message
        names the file and the fix.
    """
    task_dir = Path(task_dir)
    path = task_dir / "task.toml"
    try:
        metadata = tomllib.loads(path.read_text()).get("metadata", {})
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise CompositionError(
            f"{path}: cannot read the task's tags ({exc}); every task needs a TOML task.toml"
        ) from exc
    packages = metadata.get("packages", [])
    if isinstance(packages, str) or not all(isinstance(p, str) for p in packages):
        raise CompositionError(f'{path}: [metadata] packages must be a list of strings, e.g. packages = ["gromacs"]')
    dockerfile = task_dir / "environment" / "Dockerfile"
    bases = re.findall(r"^\s*FROM\s+(\S+)", dockerfile.read_text(), re.M | re.I) if dockerfile.is_file() else []
    return {
        "task": task_dir.name,
        **{tag: str(metadata.get(tag, UNKNOWN)) for tag in ("difficulty", "category", "system", "method")},
        "packages": tuple(packages) if packages else (UNKNOWN,),
        "image": bases[-1] if bases else UNKNOWN,
    }


def suite_composition(tasks_dir: str | Path) -> pd.DataFrame:
    """One row per task folder of ``tasks_dir`` (a folder with a task.toml): its tags and base image, by name.

    Columns: task, difficulty, category, system, method, packages (tuple of names), image.
    """
    tasks_dir = Path(tasks_dir)
    if not tasks_dir.is_dir():
        raise CompositionError(f"{tasks_dir}: no such tasks folder (agents.tasks_dir in the config)")
    return tasks_composition(p.parent for p in sorted(tasks_dir.glob("*/task.toml")))


def tasks_composition(task_dirs: Iterable[str | Path]) -> pd.DataFrame:
    """Like :func:`suite_composition`, for the given task folders (the tasks a configuration selects)."""
    rows = [task_tags(path) for path in task_dirs]
    columns = ["task", "difficulty", "category", "system", "method", "packages", "image"]
    return pd.DataFrame(rows, columns=columns)


def write_composition(task_dirs: Iterable[str | Path], table_path: str | Path, figure_path: str | Path) -> pd.DataFrame:
    """Write the composition table (CSV: tag, value, tasks, share) and figure of the given task folders."""
    suite = tasks_composition(task_dirs)
    composition_table(suite).to_csv(table_path, index=False)
    composition_figure(suite, figure_path)
    return suite


def _long(suite: pd.DataFrame) -> pd.DataFrame:
    """One row per (task, tag, value); a task appears once per package."""
    rows = []
    for record in suite.to_dict("records"):
        for tag in TAGS:
            values = record["packages"] if tag == "package" else (record[tag],)
            rows += [{"task": record["task"], "tag": tag, "value": value} for value in values]
    return pd.DataFrame(rows, columns=["task", "tag", "value"])


def _order(tag: str, values: pd.Series):
    """Difficulties in their natural order; other tags by value name (count order is applied by the caller)."""
    if tag == "difficulty":
        return values.map(lambda v: DIFFICULTIES.index(v) if v in DIFFICULTIES else len(DIFFICULTIES))
    return values


def composition_table(suite: pd.DataFrame) -> pd.DataFrame:
    """Tasks per tag value: columns tag, value, tasks, share (of the suite's tasks).

    Difficulties come in the order easy, medium, hard; other values by task count, then name.
    """
    long = _long(suite)
    counts = long.groupby(["tag", "value"], sort=False)["task"].nunique().rename("tasks").reset_index()
    counts["share"] = counts["tasks"] / max(len(suite), 1)
    parts = []
    for tag in TAGS:
        part = counts[counts["tag"] == tag]
        if tag == "difficulty":
            part = part.sort_values("value", key=lambda v: _order(tag, v), kind="stable")
        else:
            part = part.sort_values(["tasks", "value"], ascending=[False, True], kind="stable")
        parts.append(part)
    return pd.concat(parts, ignore_index=True) if parts else counts


def composition_markdown(suite: pd.DataFrame) -> str:
    """The composition as a Markdown table (one line per tag, values with their task counts)."""
    table = composition_table(suite)
    lines = [f"| tag | {len(suite)} tasks |", "|---|---|"]
    for tag in TAGS:
        part = table[table["tag"] == tag]
        lines.append(
            f"| {tag} ({len(part)}) | " + ", ".join(f"{v} {n}" for v, n in zip(part["value"], part["tasks"])) + " |"
        )
    return "\n".join(lines) + "\n"


def composition_figure(suite: pd.DataFrame, path: str | Path) -> None:
    """Bar charts of tasks per difficulty, method, package and system, written to ``path`` (PNG/PDF by suffix)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table = composition_table(suite)
    panels = ("difficulty", "method", "package", "system")
    fig, axes = plt.subplots(1, len(panels), figsize=(16, 4.5), gridspec_kw={"width_ratios": [1, 2, 2.5, 1.5]})
    for ax, tag in zip(axes, panels):
        part = table[table["tag"] == tag]
        ax.bar(range(len(part)), part["tasks"], color="#4477aa")
        ax.set_xticks(range(len(part)), part["value"], rotation=60, ha="right", fontsize=8)
        ax.set_title(f"{tag} ({len(part)})")
        ax.set_ylabel("tasks" if tag == panels[0] else "")
    fig.suptitle(f"Agent task suite: {len(suite)} tasks")
    from westbench.presentation.figure_layout import fit_titles

    fit_titles(fig)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def tagged_grid(grid: pd.DataFrame, suite: pd.DataFrame, tags: Sequence[str] = TAGS) -> pd.DataFrame:
    """``grid`` (one row per trial) repeated once per tag value of its task, with columns ``tag`` and ``value``.

    Grouping the result by ``tag`` and ``value`` gives results per difficulty, category, package, system
    and method with whatever counting the caller applies (the leaderboard's MDArena rules and intervals);
    a trial counts under every package of its task, and tasks missing from ``suite`` count as ``unknown``.

    Examples
    --------
    >>> suite = pd.DataFrame({"task": ["a"], "difficulty": ["easy"], "category": ["analysis"], "system": ["peptide"],
    ...                       "method": ["analysis"], "packages": [("mdtraj", "numpy")], "image": ["x"]})
    >>> grid = pd.DataFrame({"task": ["a", "z"], "agent": ["oracle", "oracle"]})
    >>> tagged_grid(grid, suite, tags=("package", "system"))[["task", "tag", "value"]].values.tolist()
    ... # doctest: +NORMALIZE_WHITESPACE
    [['a', 'package', 'mdtraj'], ['a', 'package', 'numpy'], ['a', 'system', 'peptide'],
     ['z', 'package', 'unknown'], ['z', 'system', 'unknown']]
    """
    unknown_tag = [t for t in tags if t not in TAGS]
    if unknown_tag:
        raise CompositionError(f"unknown tags {unknown_tag}; choose from {list(TAGS)}")
    long = _long(suite)
    long = long[long["tag"].isin(tags)]
    extra = pd.DataFrame(
        [
            {"task": t, "tag": tag, "value": UNKNOWN}
            for t in sorted(set(grid["task"]) - set(suite["task"]))
            for tag in tags
        ],
        columns=["task", "tag", "value"],
    )
    return grid.merge(pd.concat([long, extra], ignore_index=True), on="task", how="inner").reset_index(drop=True)


def breakdown_by_tag(
    trials: pd.DataFrame, suite: pd.DataFrame, tags: Sequence[str] = TAGS, group: Sequence[str] = ("agent",)
) -> pd.DataFrame:
    """Trials split by tag: one row per (tag, value, *group) with trials, tasks, mean_correctness, pass_rate
    and, where the trials have it, mean score.

    ``trials`` needs ``task`` and ``correctness`` (and the ``group`` columns); ``passed`` (bool) where given,
    else a trial passes at correctness 1. A trial counts under every package of its task. Tasks missing from
    ``suite`` count as ``unknown``.
    """
    missing = {"task", "correctness", *group} - set(trials.columns)
    if missing:
        raise CompositionError(f"the trials table lacks the columns {sorted(missing)} (a leaderboard grid has them)")
    unknown_tag = [t for t in tags if t not in TAGS]
    if unknown_tag:
        raise CompositionError(f"unknown tags {unknown_tag}; choose from {list(TAGS)}")
    long = _long(suite)
    long = long[long["tag"].isin(tags)]
    frame = trials.copy()
    frame["passed"] = frame["passed"].astype(bool) if "passed" in frame else frame["correctness"] >= 1.0
    known = set(suite["task"])
    extra = pd.DataFrame(
        [{"task": t, "tag": tag, "value": UNKNOWN} for t in sorted(set(frame["task"]) - known) for tag in tags],
        columns=["task", "tag", "value"],
    )
    merged = frame.merge(pd.concat([long, extra], ignore_index=True), on="task", how="inner")
    aggregations = {
        "trials": ("task", "size"),
        "tasks": ("task", "nunique"),
        "mean_correctness": ("correctness", "mean"),
        "pass_rate": ("passed", "mean"),
    }
    if "score" in merged:
        aggregations["avg_score"] = ("score", "mean")
    table = merged.groupby(["tag", "value", *group], sort=False).agg(**aggregations).reset_index()
    order = {tag: i for i, tag in enumerate(TAGS)}
    table["_tag"] = table["tag"].map(order)
    table["_value"] = [
        DIFFICULTIES.index(v) if t == "difficulty" and v in DIFFICULTIES else 9
        for t, v in zip(table["tag"], table["value"])
    ]
    table = table.sort_values(["_tag", "_value", "value", *group], kind="stable").drop(columns=["_tag", "_value"])
    return table.reset_index(drop=True)
