"""Time the metric suite's job, what rule ``metric_suite`` runs, on synthetic C-alpha frames of a
chignolin-sized protein.

Default: 600,000 model frames (WE-like: 600 iterations of segments of 10 frames, random
weights) against 300,000 ground-truth frames (300 runs of 1,000 frames), 10 beads, 10 TICs,
the schema's ``metrics`` defaults (every weighting, 200 BCa bootstrap replicates, 100
noise-floor splits), the protein's macrostate model fitted once (rule ``macrostates``, timed
apart) and every figure: :func:`westbench.metrics.score.score_engine` from frames files to
``metrics.json``.

    .venv/bin/python benchmarks/metrics_suite.py [--model-frames N] [--groundtruth-frames N] [--bootstrap N]
        [--kl-estimator nearest_neighbours|histogram]

Writes benchmarks/results/metrics_suite.json with the wall time of each part.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import logging
import os
import platform
import pstats
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from westbench.config import section_defaults  # noqa: E402
from westbench.io.frames import write_frames  # noqa: E402
from westbench.metrics.macrostate_fit import fit_macrostate_model  # noqa: E402
from westbench.metrics.score import score_engine  # noqa: E402


def synthetic_frames(n_frames: int, frames_per_traj: int, n_beads: int, shift: float, seed: int) -> dict:
    """A random-walk C-alpha chain with 0.38 nm bonds, Gaussian TICs and random weights."""
    rng = np.random.default_rng(seed)
    steps = rng.normal(size=(n_frames, n_beads - 1, 3)).astype(np.float32)
    steps *= (0.38 + 0.01 * rng.normal(size=(n_frames, n_beads - 1, 1)).astype(np.float32)) / np.linalg.norm(
        steps, axis=-1, keepdims=True
    )
    ca = np.concatenate([np.zeros((n_frames, 1, 3), np.float32), np.cumsum(steps, axis=1)], axis=1)
    n_traj = -(-n_frames // frames_per_traj)
    traj = np.repeat(np.arange(n_traj), frames_per_traj)[:n_frames]
    # TICs: a slow random walk per trajectory, so MSMs have structure.
    tics = np.cumsum(rng.normal(scale=0.05, size=(n_frames, 10)), axis=0) % 4.0 - 2.0 + shift
    weight = rng.random(n_frames)
    return {
        "ca": ca,
        "tics": tics.astype(np.float32),
        "weight": weight / weight.sum(),
        "traj": traj,
        "time_ps": (np.arange(n_frames) % frames_per_traj).astype(np.float64),
        "iteration": traj // 100 + 1,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model-frames", type=int, default=600_000)
    parser.add_argument("--groundtruth-frames", type=int, default=300_000)
    parser.add_argument("--beads", type=int, default=10)
    parser.add_argument("--bootstrap", type=int, default=None, help="replicates (default: the schema's)")
    parser.add_argument("--kl-estimator", default=None, help="metrics.kl_estimator (default: the schema's)")
    parser.add_argument("--profile", action="store_true", help="print the top functions by cumulative time")
    parser.add_argument("--output", default=str(Path(__file__).parent / "results" / "metrics_suite.json"))
    args = parser.parse_args()

    settings = {**section_defaults("metrics"), "seed": 2024}
    if args.bootstrap is not None:
        settings["bootstrap"] = args.bootstrap
    if args.kl_estimator is not None:
        settings["kl_estimator"] = args.kl_estimator
    suite_settings = {
        key: settings[key]
        for key in settings
        if key not in ("macrostate_clusters", "macrostate_dim", "coverage_thresholds", "reference_engine")
    }
    timings = {}
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        groundtruth = synthetic_frames(args.groundtruth_frames, 1000, args.beads, 0.0, seed=1)
        model = synthetic_frames(args.model_frames, 10, args.beads, 0.2, seed=2)
        model["seg_id"] = model["traj"] % 100  # a WE export: 100 segments per iteration
        write_frames(folder / "groundtruth.h5", **groundtruth)
        write_frames(folder / "model.h5", **model)
        del groundtruth, model
        profiler = cProfile.Profile() if args.profile else None
        if profiler:
            profiler.enable()
        start = time.perf_counter()
        fit_macrostate_model(folder / "groundtruth.h5", settings, 2024, folder / "macrostates.npz")
        timings["macrostates_rule_s"] = time.perf_counter() - start
        start, cpu = time.perf_counter(), time.process_time()
        record = score_engine(
            folder / "groundtruth.h5",
            folder / "model.h5",
            suite_settings,
            protein="p",
            engine="e",
            json_path=folder / "metrics.json",
            csv_path=folder / "metrics.csv",
            figures_dir=folder / "figures",
            macrostates=folder / "macrostates.npz",
        )
        timings["metrics_rule_s"] = time.perf_counter() - start
        timings["metrics_rule_cpu_s"] = time.process_time() - cpu
        if profiler:
            profiler.disable()
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(25)
            print(out.getvalue())
    result = {
        "model_frames": args.model_frames,
        "groundtruth_frames": args.groundtruth_frames,
        "beads": args.beads,
        "weightings": settings["weightings"],
        "bootstrap": settings["bootstrap"],
        "floor_splits": settings["floor_splits"],
        "kl_estimator": settings["kl_estimator"],
        "resampling": record["resampling"],
        "not_estimable": record["not_estimable"],
        "figures": record["figures"]["files"],
        "metrics_rule_s": round(timings["metrics_rule_s"], 2),
        "metrics_rule_cpu_s": round(timings["metrics_rule_cpu_s"], 2),
        "load_average_1min_after": round(os.getloadavg()[0], 2),
        "macrostates_rule_s": round(timings["macrostates_rule_s"], 2),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    main()
