"""Records as the interfaces of RULES.md fix them, for the report's tests: a ``controls.json`` (HCTL), a
``metrics.json`` with ``sanity`` (HSAN), ``training`` and the TICA's caveat, and a W1/KL table row set."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

DISTRIBUTIONS = ("tic0", "tic1", "tic2", "tic3", "rg", "bonds", "angles", "dihedrals", "tic01")
#: Control families as the controls stage names them, with the distributions each moves.
FAILURES = {
    "collapse": ("collapse (3 conformations repeated)", DISTRIBUTIONS, None),
    "mirror": ("mirror image", ("dihedrals",), None),
    "scale": ("coordinates x10 (Angstrom read as nm)", ("tic0", "tic1", "tic2", "tic3", "tic01", "rg", "bonds"), 10.0),
    "shift": ("shift along TIC 0 by 1 sd", ("tic0", "tic01"), 1.0),
}


def controls_record(detected: dict, resolved: dict | None = None, smallest: dict | None = None) -> dict:
    """A ``controls.json``: one null control and the failures of :data:`FAILURES` with ``detected`` (family ->
    True / False / None); ``resolved`` ((metric, distribution) -> bool, default each W1 and KL resolved where some
    detected control moves it); ``smallest`` ((metric, distribution) -> value)."""
    answers = {True: "yes", False: "no", None: "cannot tell"}
    controls = [
        {
            "name": "null_half",
            "family": "null",
            "kind": "null",
            "failure_mode": None,
            "description": "the other half of the ground truth",
            "expected": "within noise",
            "moves": [],
            "effect": None,
            "detected": False,
            "note": "",
            "cells": {"w1": {"tic0": {"value": 0.1, "verdict": "within noise", "note": ""}}},
        }
    ]
    for family, found in detected.items():
        mode, moves, effect = FAILURES[family]
        verdict = {True: "separated", False: "within noise", None: "undetermined"}[found]
        note = "" if found is not None else "an interval needs at least 3 independent units on each side"
        controls.append(
            {
                "name": family,
                "family": family,
                "kind": "failure",
                "failure_mode": mode,
                "description": f"the {family} control",
                "expected": "separated",
                "moves": list(moves),
                "effect": effect,
                "detected": found,
                "note": note,
                "cells": {
                    m: {d: {"value": 1.0, "verdict": verdict, "note": note} for d in moves} for m in ("w1", "kl")
                },
            }
        )
    if resolved is None:
        resolved = {
            (m, d): any(found and d in FAILURES[f][1] for f, found in detected.items())
            for m in ("w1", "kl")
            for d in DISTRIBUTIONS
        }
    resolution: dict = {}
    for (metric, name), flag in resolved.items():
        resolution.setdefault(metric, {})[name] = {
            "smallest_separated": (smallest or {}).get((metric, name), 0.4) if flag else None,
            "largest_within_noise": None if flag else 0.2,
            "resolved": bool(flag),
        }
    return {
        "protein": "p",
        "reference": "a seeded random half of the ground truth's runs",
        "controls": controls,
        "detects": {FAILURES[f][0]: answers[found] for f, found in detected.items()},
        "resolution": resolution,
        "settings": {},
        "seconds": 0.1,
    }


def metrics_record(engine: str, *, training=None, sanity=None, tica: str = "", kl_floor=1e-8, frames=600) -> dict:
    """A ``metrics.json`` with only what the report's evidence reads."""
    not_estimable = {"tica": f"the TICA is not well posed: {tica}"} if tica else {}
    return {
        "protein": "p",
        "engine": engine,
        "frames": 100,
        "groundtruth_frames": frames,
        "settings": {"kl_floor": kl_floor, "weightings": ["we"]},
        "noise_floor": {"of_units": 30, "units": 3},
        "not_estimable": not_estimable,
        **({"training": training} if training else {}),
        **({"sanity": sanity} if sanity else {}),
        "metrics": {"we": {}},
    }


def write_metrics(folder: Path, records: dict) -> list:
    """Each engine's record as ``<folder>/<engine>/metrics.json``; (protein, engine, path) records."""
    out = []
    for engine, record in records.items():
        path = Path(folder) / engine / "metrics.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record))
        out.append(("p", engine, path))
    return out


def divergence_rows(values: dict, metric: str = "w1", floor: float = 0.25) -> pd.DataFrame:
    """A W1/KL table: ``values`` maps engine -> {distribution: (value, low, high, verdict)}."""
    rows = []
    for engine, by_name in values.items():
        row = {"protein": "p", "engine": engine, "weighting": "we"}
        for name, (value, low, high, verdict) in by_name.items():
            row.update(
                {
                    name: value,
                    f"{name}_ci_low": low,
                    f"{name}_ci_high": high,
                    f"{name}_floor_high": floor,
                    f"{name}_verdict": verdict,
                    f"{name}_note": "",
                }
            )
        rows.append(row)
    return pd.DataFrame(rows)
