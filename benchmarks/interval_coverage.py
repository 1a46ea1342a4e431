"""How often the metric suite's 95 % intervals hold the known answer, against the length of the resampled blocks.

On a finished run's calibration study (results/calibration/<study>/): every engine with a known answer (the null,
the perturbations of the reference) is scored again as rule ``calibration_metrics`` scores it (its weighting, its
settings from metrics.json), once per ``metrics.block_decorrelation`` value, and each W1 and KL interval is
checked against the exact prediction (the ground truth reweighted to the engine's equilibrium,
:func:`westbench.calibration.predictions.predicted_divergences`). Honest 95 % intervals hold it about 95 % of the time;
the value the schema sets is the one chosen from this table (docs/calibration.md, "Interval coverage").

    .venv/bin/python benchmarks/interval_coverage.py [--results results] [--factors 0 1 2 3 4]

Writes benchmarks/results/interval_coverage.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from westbench.calibration.predictions import predicted_divergences  # noqa: E402
from westbench.calibration.verdicts import expected_verdict  # noqa: E402
from westbench.io.frames import read_frames  # noqa: E402
from westbench.metrics.engine_scoring import score_frames  # noqa: E402
from westbench.metrics.metastable import MacrostateModel  # noqa: E402
from westbench.metrics.noise_floor import SEPARATED  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--results", default="results")
    parser.add_argument("--study", default="chignolin")
    parser.add_argument("--factors", type=float, nargs="+", default=[0.0, 1.0, 2.0, 3.0, 4.0])
    parser.add_argument("--out", default="benchmarks/results/interval_coverage.json")
    args = parser.parse_args()
    folder = Path(args.results) / "calibration" / args.study
    groundtruth = read_frames(folder / "tica" / "groundtruth_frames.h5")
    macrostates = MacrostateModel.load(folder / "tica" / "macrostates.npz")
    weights = dict(np.load(folder / "reweighting.npz"))
    started = time.perf_counter()
    cells: dict = {str(f): [] for f in args.factors}
    for engine, known in sorted(weights.items()):
        record = json.loads((folder / "metrics" / engine / "metrics.json").read_text())
        settings = {**record["settings"], "weightings": list(record["metrics"])}
        weighting = settings["weightings"][0]
        predicted = predicted_divergences(groundtruth, known, settings)
        model = read_frames(folder / "we" / engine / "frames.h5")
        for factor in args.factors:
            scored = score_frames(
                groundtruth,
                model,
                {**settings, "block_decorrelation": factor},
                protein=args.study,
                engine=engine,
                macrostate_model=macrostates,
            ).record
            values = scored["metrics"][weighting]
            for (metric, name), answer in predicted.items():
                interval = (values.get("intervals") or {}).get(metric, {}).get(name)
                floor = ((values.get("noise_floor") or {}).get(metric) or {}).get(name) or {}
                cells[str(factor)].append(
                    {
                        "engine": engine,
                        "metric": metric,
                        "distribution": name,
                        "predicted": answer,
                        "low": None if interval is None else interval["low"],
                        "high": None if interval is None else interval["high"],
                        "units": scored["resampling"]["model"],
                        "expected": expected_verdict(answer, floor.get("high") or np.nan),
                    }
                )
        print(f"{engine}: done ({time.perf_counter() - started:.0f} s)", flush=True)
    summary = {}
    for factor, rows in cells.items():
        with_interval = [r for r in rows if r["low"] is not None]
        covered = [r for r in with_interval if r["low"] <= r["predicted"] <= r["high"]]
        headline = [r for r in with_interval if r["metric"] == "w1" and r["distribution"] in ("tic0", "tic1", "rg")]
        resolved = [r for r in with_interval if r["expected"] == SEPARATED]
        summary[factor] = {
            "resolved_cells": len(resolved),
            "resolved_rate": round(sum(r["low"] <= r["predicted"] <= r["high"] for r in resolved) / len(resolved), 3)
            if resolved
            else None,
            "cells": len(rows),
            "with_interval": len(with_interval),
            "covered": len(covered),
            "rate": round(len(covered) / len(with_interval), 3) if with_interval else None,
            "headline_rate": round(sum(r["low"] <= r["predicted"] <= r["high"] for r in headline) / len(headline), 3)
            if headline
            else None,
            "units": sorted({r["units"] for r in rows}),
        }
        print(f"block_decorrelation {factor}: {summary[factor]}")
    out = {
        "command": "benchmarks/interval_coverage.py " + " ".join(sys.argv[1:]),
        "machine": {"processor": platform.processor() or platform.machine(), "python": platform.python_version()},
        "study": args.study,
        "seconds": round(time.perf_counter() - started, 1),
        "summary": summary,
        "cells": cells,
    }
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
