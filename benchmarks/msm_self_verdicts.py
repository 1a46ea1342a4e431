"""How often a small ground truth reweighted by its own grid MSM reads *separated* from itself under the ``msm``
weighting (the scoring contract's self property; docs/scoring.md, "Scoring contract").

Generates ground truths of the scoring contract's test shapes (4-8 runs of 5-15 frames, a random-walk C-alpha chain
and normal TICs, ``tests/unit/metrics/test_contract.py``), scores each against itself with the contract's settings
and counts the cells whose ``msm`` verdict is *separated*; for each such case it records the estimate, the interval's
low and the noise floor's high. It also counts the KL cells whose floor reads 0 up to its upper bound (the
estimator's clip): those are undetermined, the price in resolution of not reading such a floor as a floor of 0.

    nice -n 10 .venv/bin/python benchmarks/msm_self_verdicts.py [--cases 150] [--first-seed 1000]

Writes benchmarks/results/msm_self_verdicts.json.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from collections import Counter
from pathlib import Path

import numpy as np

from westbench.metrics.engine_scoring import score_frames

OUT = Path(__file__).resolve().parent / "results" / "msm_self_verdicts.json"
#: The scoring contract test's settings (tests/unit/metrics/test_contract.py).
SETTINGS = {
    "weightings": ["msm"],
    "bootstrap": 20,
    "floor_splits": 20,
    "bins": 20,
    "msm_bins": 6,
    "w1_2d_bins": 8,
    "coverage_bins": 10,
    "macrostate_clusters": 6,
    "macrostates": 2,
    "kl_sensitivity_bins": [10, 20],
    "min_effective_frames": 1,
    "seed": 1,
}


def groundtruth(seed: int) -> dict:
    """``runs`` of ``per_run`` frames: a random-walk chain of 6 C-alpha atoms and 4 normal TICs, equal weights."""
    rng = np.random.default_rng(seed)
    runs, per_run = int(rng.integers(4, 9)), int(rng.integers(5, 16))
    n = runs * per_run
    return {
        "ca": np.cumsum(rng.normal(0, 0.15, size=(n, 6, 3)), axis=1).astype(np.float32),
        "tics": rng.normal(size=(n, 4)).astype(np.float32),
        "weight": np.full(n, 1.0 / n),
        "traj": np.repeat(np.arange(runs), per_run),
        "time_ps": np.tile(np.arange(per_run, dtype=float), runs),
        "iteration": np.zeros(n, dtype=int),
    }


def separated_cells(seed: int, undecided: Counter) -> list[dict]:
    """The *separated* cells of one case; counts into ``undecided`` the KL cells and those whose floor's upper
    bound is 0 (marked ``bias``, undetermined: :func:`westbench.metrics.kl_rows.kl_mark`)."""
    frames = groundtruth(seed)
    scores = score_frames(frames, frames, SETTINGS, protein="self", engine="self").record["metrics"]["msm"]
    for name, floor in (scores.get("noise_floor") or {}).get("kl", {}).items():
        undecided["kl_cells"] += 1
        undecided["kl_cells_floor_at_0"] += floor.get("high") is not None and floor["high"] <= 0.0
    found = []
    for metric, verdicts in (scores.get("verdicts") or {}).items():
        for name, verdict in verdicts.items():
            if verdict == "separated":
                found.append(
                    {
                        "seed": seed,
                        "frames": len(frames["ca"]),
                        "runs": int(frames["traj"].max()) + 1,
                        "metric": metric,
                        "distribution": name,
                        "estimate": scores[metric][name],
                        "interval_low": scores["intervals"][metric][name]["low"],
                        "floor_high": scores["noise_floor"][metric][name]["high"],
                    }
                )
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=150)
    parser.add_argument("--first-seed", type=int, default=1000)
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # every case logs its not-estimable parts
    start, cases, undecided = time.perf_counter(), [], Counter()
    for i, seed in enumerate(range(args.first_seed, args.first_seed + args.cases), start=1):
        cases += separated_cells(seed, undecided)
        if i % 25 == 0:
            elapsed = time.perf_counter() - start
            print(f"{i}/{args.cases} cases, {elapsed:.0f} s, ETA {elapsed / i * (args.cases - i):.0f} s", flush=True)
    result = {
        "cases": args.cases,
        "first_seed": args.first_seed,
        "cases_with_a_separated_cell": len({c["seed"] for c in cases}),
        "separated_cells": cases,
        **{key: int(value) for key, value in undecided.items()},
        "seconds": round(time.perf_counter() - start, 1),
    }
    OUT.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "separated_cells"}), cases)


if __name__ == "__main__":
    main()
