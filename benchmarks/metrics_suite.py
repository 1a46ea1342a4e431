"""Time the metric suite on synthetic C-alpha frames of a chignolin-sized protein (issue 5 benchmark).

Default: 600,000 model frames (WE-like: segments of 10 frames, random weights) against
300,000 ground-truth frames (trajectories of 1,000 frames), 10 beads, 10 TICs, every
weighting of the default config (we, msm, counts), macrostates and every figure.

    .venv/bin/python benchmarks/metrics_suite.py [--model-frames N] [--groundtruth-frames N]

Writes benchmarks/results/metrics_suite.json with the wall time of each part.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import platform
import pstats
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from westbench.metrics.figures import write_metric_figures  # noqa: E402
from westbench.metrics.suite import MetricSuite  # noqa: E402


def synthetic_frames(n_frames: int, frames_per_traj: int, n_beads: int, shift: float, seed: int) -> dict:
    """A random-walk C-alpha chain with 0.38 nm bonds, Gaussian TICs and random weights."""
    rng = np.random.default_rng(seed)
    steps = rng.normal(size=(n_frames, n_beads - 1, 3)).astype(np.float32)
    steps *= (0.38 + 0.01 * rng.normal(size=(n_frames, n_beads - 1, 1)).astype(np.float32)) / np.linalg.norm(steps, axis=-1, keepdims=True)
    ca = np.concatenate([np.zeros((n_frames, 1, 3), np.float32), np.cumsum(steps, axis=1)], axis=1)
    n_traj = -(-n_frames // frames_per_traj)
    traj = np.repeat(np.arange(n_traj), frames_per_traj)[:n_frames]
    # TICs: a slow random walk per trajectory, so MSMs have structure.
    tics = np.cumsum(rng.normal(scale=0.05, size=(n_frames, 10)), axis=0) % 4.0 - 2.0 + shift
    weight = rng.random(n_frames)
    return {"ca": ca, "tics": tics.astype(np.float32), "weight": weight / weight.sum(), "traj": traj,
            "iteration": traj // 100 + 1}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model-frames", type=int, default=600_000)
    parser.add_argument("--groundtruth-frames", type=int, default=300_000)
    parser.add_argument("--beads", type=int, default=10)
    parser.add_argument("--profile", action="store_true", help="print the top functions by cumulative time")
    parser.add_argument("--output", default=str(Path(__file__).parent / "results" / "metrics_suite.json"))
    args = parser.parse_args()

    groundtruth = synthetic_frames(args.groundtruth_frames, 1000, args.beads, 0.0, seed=1)
    model = synthetic_frames(args.model_frames, 10, args.beads, 0.2, seed=2)
    settings = {"weightings": ["we", "msm", "counts"], "bins": 100, "kl_floor": 1e-8, "msm_bins": 80,
                "msm_lag": 1, "coverage_bins": 100, "macrostate_clusters": 100, "macrostates": 5,
                "macrostate_dim": 10, "seed": 2024}
    timings = {}
    profiler = cProfile.Profile() if args.profile else None
    if profiler:
        profiler.enable()
    start = time.perf_counter()
    suite = MetricSuite(groundtruth, model, settings)
    timings["features_s"] = time.perf_counter() - start
    for weighting in settings["weightings"]:
        t0 = time.perf_counter()
        suite.score(weighting)
        timings[f"score_{weighting}_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    labels = suite.macrostates()
    timings["macrostates_s"] = time.perf_counter() - t0
    metrics_s = time.perf_counter() - start
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        write_metric_figures(folder, groundtruth, model, suite.weights("we"), suite.score("we")[0], labels,
                             settings)
        figures = sorted(os.listdir(folder))
    timings["figures_s"] = time.perf_counter() - t0
    total = time.perf_counter() - start
    if profiler:
        profiler.disable()
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(25)
        print(out.getvalue())
    result = {"model_frames": args.model_frames, "groundtruth_frames": args.groundtruth_frames,
              "beads": args.beads, "weightings": settings["weightings"], "figures": figures,
              "metrics_s": round(metrics_s, 2), "total_s": round(total, 2),
              "parts_s": {k: round(v, 2) for k, v in timings.items()},
              "cpu_count": os.cpu_count(), "python": platform.python_version(), "machine": platform.machine()}
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
