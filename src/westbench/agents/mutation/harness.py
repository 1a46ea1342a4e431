"""Every mutant of a task, derived from its reference solution: the output mutants of each delivered file by its
format (one per group of like files), a deliverable deleted, and the contract's mutants; an output mutant applied."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

from westbench.agents.mutation.catalogue import OPERATORS, Mutant
from westbench.agents.mutation.deliverables import deliverable_filter, read_text
from westbench.agents.mutation.json_files import json_mutants
from westbench.agents.mutation.parameters import contract_mutants
from westbench.agents.mutation.reports import report_mutant
from westbench.agents.mutation.structures import coordinate_mutant, ndx_mutants
from westbench.agents.mutation.tables import csv_mutants
from westbench.agents.mutation.xml_files import xml_mutants


def _group(relative: str) -> str:
    return re.sub(r"\d+", "#", relative)


def delete_mutants(files: Sequence[str]) -> list[Mutant]:
    """One deliverable left out per group of like files (window_3/md.xtc stands for every window's)."""
    groups: dict[str, list[str]] = {}
    for relative in sorted(files):
        groups.setdefault(_group(relative), []).append(relative)
    return [
        Mutant(
            id=f"delete:{members[-1]}",
            operator="delete",
            file=members[-1],
            description=f"{OPERATORS['delete']}: {members[-1]}",
            level="output",
            changes={members[-1]: None},
        )
        for members in groups.values()
    ]


def output_mutants(root: str | Path, deliverable=None) -> list[Mutant]:
    """Every output mutant of the delivered files under ``root`` (the artifacts of one reference run).

    ``deliverable(relative_path)`` picks the files the task asks for (default: every file): a by-product of the
    reference run (a log, a checkpoint) is no deliverable, and a mistake in it changes nothing the task asks for.
    """
    root = Path(root)
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    if deliverable is not None:
        files = [f for f in files if deliverable(f)]
    mutants = delete_mutants(files)
    seen_groups: set[tuple[str, str]] = set()
    for relative in files:
        path = root / relative
        text = read_text(path)
        if text is None:
            continue
        suffix = path.suffix.lower()
        if suffix == ".json":
            found = json_mutants(relative, text)
        elif suffix in (".csv", ".tsv"):
            found = csv_mutants(relative, text)
        elif suffix in (".pdb", ".gro"):
            found = [m for m in [coordinate_mutant(relative, text)] if m]
        elif suffix in (".md", ".txt"):
            found = [m for m in [report_mutant(relative, text)] if m]
        elif suffix == ".xml":
            found = xml_mutants(relative, text)
        elif suffix == ".ndx":
            found = ndx_mutants(relative, text)
        else:
            found = []
        for mutant in found:  # like files (one per window) are mutated once, in their last member
            key = (_group(relative), mutant.id.replace(relative, _group(relative)))
            if key in seen_groups:
                mutants = [m for m in mutants if (_group(m.file), m.id.replace(m.file, _group(m.file))) != key]
            seen_groups.add(key)
            mutants.append(mutant)
    return mutants


def all_mutants(task_path: str | Path, outputs: str | Path, contract=None) -> list[Mutant]:
    """Every mutant of a task: its output mutants (of its deliverables) and its contract's, ids unique."""
    found = {}
    deliverable = deliverable_filter(task_path, contract)
    for mutant in output_mutants(outputs, deliverable) + contract_mutants(task_path, contract, outputs):
        found.setdefault(mutant.id, mutant)
    return list(found.values())


def apply_output_mutant(mutant: Mutant, root: str | Path) -> None:
    """Apply an output mutant to a copy of the delivered files under ``root``."""
    for relative, text in mutant.changes.items():
        path = Path(root) / relative
        if text is None:
            path.unlink(missing_ok=True)
        else:
            path.write_text(text)
