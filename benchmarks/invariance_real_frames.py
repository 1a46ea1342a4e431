"""Every engine's metrics.json under every transformation that carries no information, on a finished run's real frames.

The held-out style of check of issue 51 (deliverable 4): for each engine of a protein, its suite is scored again
with the settings its ``metrics.json`` records, once as it is and once per transformation of the scoring contract
(:data:`westbench.metrics.contract.INVARIANCES`: row order, copies of frames in every form, weights times 1000,
weightless frames, rigid motion) applied to the model, to the ground truth and to both; every value of the record
(numbers to 1e-9 relative, verdicts, flags and reasons exactly) must stay. Two more rows say what is *not* an
invariance here, and by how much it moves the record: one rigid motion for every frame (an invariance too), and a
rigid motion whose coordinates are stored back in float32, as a frames file holds them (that rounding changes the
coordinates themselves, by about 1e-7 of their size).

    nice -n 10 .venv/bin/python benchmarks/invariance_real_frames.py --results <a finished run>/results \\
        --protein chignolin [--engines implicit explicit ...]

Writes benchmarks/results/invariance_<protein>.json: per engine, how many values the record holds, and per
transformation and side how many changed, how many of them are verdicts, the largest relative change and the first
few changes; and how the current code's record differs from the stored metrics.json (negative lower bounds there).
"""

from __future__ import annotations

import argparse
import json
import logging
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from westbench.io.frames import read_frames  # noqa: E402
from westbench.metrics.adversarial import rigidly_moved  # noqa: E402
from westbench.metrics.contract import INVARIANCES, reported_values, same_value  # noqa: E402
from westbench.metrics.engine_scoring import score_frames  # noqa: E402
from westbench.metrics.metastable import MacrostateModel  # noqa: E402


def stored_in_float32(frames, seed):
    """A rigid motion whose coordinates are then rounded to float32, as a frames file stores them."""
    moved = rigidly_moved(frames, seed)
    moved["ca"] = moved["ca"].astype(np.float32)
    return moved


#: Transformations reported beside the invariances: (frames, seed) -> frames, and whether they must hold.
EXTRA = {
    "rigid motion, one for all frames": (lambda frames, seed: rigidly_moved(frames, seed), True),
    "rigid motion, stored as float32": (stored_in_float32, False),
}


def changes(before: dict, after: dict) -> list[tuple[str, object, object, float | None]]:
    """(path, before, after, relative change or None) of every value that differs."""
    out = []
    for path in sorted(set(before) | set(after)):
        a, b = before.get(path), after.get(path)
        if not same_value(a, b):
            relative = None
            if isinstance(a, float) and isinstance(b, float):
                relative = abs(a - b) / max(1.0, abs(a), abs(b))
            out.append((path, a, b, relative))
    return out


def summary(found: list) -> dict:
    relative = [r for _, _, _, r in found if r is not None]
    return {
        "changed": len(found),
        "verdicts_changed": sum("/verdicts/" in path for path, *_ in found),
        "largest_relative_change": max(relative) if relative else 0.0,
        "first": [f"{path}: {a!r} -> {b!r}" for path, a, b, _ in found[:5]],
    }


def negative_lower_bounds(record: dict) -> int:
    return sum(
        1
        for path, value in reported_values(record).items()
        if "/intervals/" in path and path.endswith("/low") and isinstance(value, float) and value < 0
    )


def check_engine(results: Path, protein: str, engine: str, seed: int) -> dict:
    base = results / protein
    stored = json.loads((base / "metrics" / engine / "metrics.json").read_text())
    settings = {**stored["settings"], "weightings": list(stored["metrics"])}
    groundtruth = read_frames(base / "tica" / "groundtruth_frames.h5")
    model_path = base / "we" / engine / "frames.h5"
    model = read_frames(model_path) if model_path.exists() else groundtruth
    macrostates = base / "tica" / "macrostates.npz"
    shared = MacrostateModel.load(macrostates) if macrostates.exists() else None

    def record(gt, frames):
        return score_frames(gt, frames, settings, protein=protein, engine=engine, macrostate_model=shared).record

    start = time.perf_counter()
    first = record(groundtruth, model)
    seconds = time.perf_counter() - start
    before = reported_values(first)
    out = {
        "model_frames": len(model["ca"]),
        "groundtruth_frames": len(groundtruth["ca"]),
        "values": len(before),
        "score_seconds": round(seconds, 2),
        "stored_record": {
            "negative_lower_bounds": negative_lower_bounds(stored),
            "now": negative_lower_bounds(first),
            "values_that_differ_from_the_stored_record": len(changes(reported_values(stored), before)),
        },
        "invariances": {},
        "not_required": {},
    }
    transformations = {name: (transform, True) for name, transform in INVARIANCES.items()} | EXTRA
    for name, (transform, required) in transformations.items():
        for side in ("model", "groundtruth", "both"):
            gt = transform(groundtruth, seed) if side != "model" else groundtruth
            frames = transform(model, seed + 1) if side != "groundtruth" else model
            if model is groundtruth and side == "both":
                frames = gt  # the ground truth against itself: one frame set
            found = changes(before, reported_values(record(gt, frames)))
            (out["invariances"] if required else out["not_required"]).setdefault(name, {})[side] = summary(found)
    return out


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--results", default="results")
    parser.add_argument("--protein", default="chignolin")
    parser.add_argument("--engines", nargs="*")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    logging.disable(logging.WARNING)
    results = Path(args.results)
    engines = args.engines or sorted(p.parent.name for p in (results / args.protein / "metrics").glob("*/metrics.json"))
    start = time.perf_counter()
    report = {
        "results": str(results.resolve()),
        "protein": args.protein,
        "tolerance": "numbers to 1e-9 relative (absolute below 1), verdicts, flags and texts exactly",
        "engines": {engine: check_engine(results, args.protein, engine, args.seed) for engine in engines},
    }
    failures = [
        (engine, name, side)
        for engine, found in report["engines"].items()
        for name, sides in found["invariances"].items()
        for side, result in sides.items()
        if result["changed"]
    ]
    report.update(
        holds=not failures,
        failures=[" / ".join(f) for f in failures],
        seconds=round(time.perf_counter() - start, 1),
        machine=platform.machine(),
        python=platform.python_version(),
    )
    out = Path(args.out or Path(__file__).parent / "results" / f"invariance_{args.protein}.json")
    out.write_text(json.dumps(report, indent=2) + "\n")
    for engine, found in report["engines"].items():
        changed = {n: max(r["changed"] for r in s.values()) for n, s in found["invariances"].items()}
        print(engine, found["values"], "values;", "changed per invariance:", changed)
        for name, sides in found["not_required"].items():
            print("   ", name, {side: (r["changed"], r["verdicts_changed"]) for side, r in sides.items()})
    print("holds" if report["holds"] else f"FAILS: {report['failures']}", f"({report['seconds']} s) -> {out}")
    return report


if __name__ == "__main__":
    main()
