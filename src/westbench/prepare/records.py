"""Gather the preparation records of a protein into one summary, and summaries into a table.

Examples
--------
>>> row = summary_row({"protein": "p", "sequence": "AA", "fix": {}, "systems": {
...     "implicit": {"atoms": 10, "protein_net_charge": 0.0},
...     "explicit": {"atoms": 99, "waters": 30, "ions": {"NA": 1}, "net_charge": 0.0}}})
>>> row["explicit_atoms"], row["explicit_ions"]
(99, 'NA:1')
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable, Mapping

import pandas as pd

from westbench.io.records import write_json


def _read(path: str | Path) -> dict:
    return json.loads(Path(path).read_text())


def merge_summaries(structure_json, fix_json, system_jsons: Iterable) -> dict:
    """One protein's summary: acquisition, PDBFixer report, and each solvent model."""
    fix = _read(fix_json)
    systems = {record["solvent"]: record for record in map(_read, system_jsons)}
    return {
        "protein": fix["protein"],
        "sequence": fix["sequence"],
        "structure": _read(structure_json),
        "fix": fix,
        "systems": systems,
    }


def summary_row(summary: Mapping) -> dict:
    """The preparation table's row of one protein summary."""
    implicit, explicit = summary["systems"]["implicit"], summary["systems"]["explicit"]
    return {
        "protein": summary["protein"],
        "sequence": summary["sequence"],
        "residues": len(summary["sequence"].replace("/", "")),
        "protein_atoms": implicit["atoms"],
        "protein_net_charge": implicit["protein_net_charge"],
        "explicit_atoms": explicit["atoms"],
        "waters": explicit["waters"],
        "explicit_ions": " ".join(f"{k}:{v}" for k, v in sorted(explicit["ions"].items())),
        "explicit_net_charge": explicit["net_charge"],
        "added_residues": summary["fix"].get("added_residues", 0),
        "added_heavy_atoms": summary["fix"].get("added_heavy_atoms", 0),
    }


def preparation_table(summary_paths: Iterable[str | Path]) -> pd.DataFrame:
    """A table of every prepared protein (one row each)."""
    return pd.DataFrame([summary_row(_read(p)) for p in summary_paths])


def write_summary(structure_json, fix_json, system_jsons: Iterable, out_json: str | Path) -> dict:
    """Write one protein's summary (:func:`merge_summaries`) as ``summary.json``; returns it."""
    summary = merge_summaries(structure_json, fix_json, system_jsons)
    write_json(summary, out_json)
    return summary


def write_preparation_table(summary_paths: Iterable[str | Path], out_csv: str | Path) -> pd.DataFrame:
    """Write the preparation table (:func:`preparation_table`) as ``preparation.csv``; returns it."""
    table = preparation_table(summary_paths)
    table.to_csv(out_csv, index=False)
    return table
