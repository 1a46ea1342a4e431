"""How much of the ``msm`` weighting's uncertainty is the MSM's own: the spread of bootstrap replicates of every
statistic with the model's weights re-estimated in each (what the suite does, ``MetricSuite.msm_statistic``) against
the full sample's weights reused (what it did before), on a finished run's real frames.

The model's units are resampled; the ground truth is held at multiplicity one, so the difference is the MSM's
estimation error alone.

    nice -n 10 .venv/bin/python benchmarks/msm_interval_width.py --results <a finished run>/results \\
        --protein chignolin --engine implicit [--replicates 200]

Writes benchmarks/results/msm_interval_width.json: per statistic the estimate and the 2.5-97.5 % spread of the
replicates both ways, their ratio, and the median ratio.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from westbench.io.canonical import canonical_frames
from westbench.io.frames import ok_frames, read_frames
from westbench.metrics.intervals import multiplicities
from westbench.metrics.suite import MetricSuite

OUT = Path(__file__).resolve().parent / "results" / "msm_interval_width.json"


def spread(values: np.ndarray) -> float:
    return float(np.nanpercentile(values, 97.5) - np.nanpercentile(values, 2.5))


def measure(results: Path, protein: str, engine: str, replicates: int, seed: int = 7) -> dict:
    record = json.loads((results / protein / "metrics" / engine / "metrics.json").read_text())
    settings = {k: v for k, v in record["settings"].items() if k != "weightings"}
    groundtruth = read_frames(results / protein / "tica" / "groundtruth_frames.h5")
    model = ok_frames(canonical_frames(read_frames(results / protein / "we" / engine / "frames.h5")))
    suite = MetricSuite(groundtruth, model, settings)
    fixed_weights, units = suite.weights("msm"), suite.model_units
    start, fixed, reestimated, failed = time.perf_counter(), [], [], 0
    for m in multiplicities(np.random.default_rng(seed), suite.n_model_units, replicates):
        weights = suite.resampled_msm_weights(m)
        if weights is None:
            failed += 1
            continue
        reused = fixed_weights * m[units]
        fixed.append(suite.estimates(reused / reused.sum()))
        reestimated.append(suite.estimates(weights))
    fixed, reestimated = np.array(fixed), np.array(reestimated)
    estimate = suite.estimates(fixed_weights)
    rows = []
    for i, (metric, name) in enumerate(suite.binned.keys):
        before, after = spread(fixed[:, i]), spread(reestimated[:, i])
        rows.append(
            {
                "metric": metric,
                "distribution": name,
                "estimate": float(estimate[i]),
                "spread_weights_reused": before,
                "spread_reestimated": after,
                "ratio": after / before if before > 0 else None,
            }
        )
    ratios = [r["ratio"] for r in rows if r["ratio"] is not None]
    return {
        "protein": protein,
        "engine": engine,
        "model_units": suite.model_unit_kind,
        "model_frames": len(suite.model["ca"]),
        "replicates": len(fixed),
        "replicates_without_msm": failed,
        "seconds": round(time.perf_counter() - start, 1),
        "median_ratio": float(np.median(ratios)) if ratios else None,
        "statistics": rows,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, required=True)
    parser.add_argument("--protein", default="chignolin")
    parser.add_argument("--engine", default="implicit")
    parser.add_argument("--replicates", type=int, default=200)
    args = parser.parse_args(argv)
    result = measure(args.results, args.protein, args.engine, args.replicates)
    OUT.write_text(json.dumps(result, indent=2) + "\n")
    for row in result["statistics"]:
        print(
            f"{row['metric']:3s} {row['distribution']:10s} spread reused {row['spread_weights_reused']:.4g} "
            f"re-estimated {row['spread_reestimated']:.4g}"
        )
    print(f"median ratio {result['median_ratio']:.2f} over {result['replicates']} replicates in {result['seconds']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
