"""Time and peak memory of the TICA fit of a large protein: what rule ``fit_tica`` runs.

Default: a generated 250-residue protein (tests/unit/tica/synthetic.py: two slow hinge motions and fast noise),
100,000 frames in 10 runs of 10,000, the schema's ``tica`` defaults (``pairs: auto``, so native contacts and
seeded random pairs up to ``max_features``) with lag 10 frames and 10 TICs: :func:`westbench.tica.fit_groundtruth`
from frames files (read, choose features, estimate memory, stream the covariances, decompose, project every frame)
plus writing the model and the projected frames. The fit runs in a child process limited to ``--threads`` BLAS
threads; its peak resident memory is the child's ``ru_maxrss``.

    .venv/bin/python benchmarks/tica_large.py [--residues 250] [--frames 100000] [--threads 2] [--max-features N]

Writes benchmarks/results/tica_large.json. Goal (issue 40): at most 4 GB and 5 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from westbench.io.frames import write_frames  # noqa: E402


def child(folder: Path, settings: dict) -> None:
    """The fit, as the rule runs it; prints one JSON line with its timings."""
    import logging

    from westbench.io.frames import write_frames as write
    from westbench.tica import fit_groundtruth

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    paths = sorted(folder.glob("run*.h5"))
    native = np.load(folder / "native.npy")
    started = time.monotonic()
    model, frames = fit_groundtruth(
        paths,
        "large",
        settings["lag_frames"],
        settings["dim"],
        features=settings["features"],
        reference=native,
        seed=2024,
    )
    fitted = time.monotonic() - started
    model.save(folder / "out" / "model")
    write(folder / "out" / "groundtruth_frames.h5", attrs={"protein": "large"}, **frames)
    total = time.monotonic() - started
    print(
        json.dumps(
            {
                "fit_and_project_s": round(fitted, 1),
                "with_writing_s": round(total, 1),
                "features": model.features.describe(),
                "well_posed": model.metadata["well_posed"],
                "why": model.metadata["why"],
                "eigenvalues": [round(v, 4) for v in model.metadata["eigenvalues"]],
            }
        )
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--residues", type=int, default=250)
    parser.add_argument("--frames", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--max-features", type=int, default=None, help="tica.features.max_features (schema's)")
    parser.add_argument("--output", default=str(ROOT / "benchmarks" / "results" / "tica_large.json"))
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    settings = {"lag_frames": 10, "dim": 10, "features": {}}
    if args.max_features:
        settings["features"]["max_features"] = args.max_features
    if args.child:
        child(Path(args.child), settings)
        return

    from tests.unit.tica.synthetic import synthetic_protein
    from westbench.config import section_defaults
    from westbench.tica import fit_memory_bytes

    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        started = time.monotonic()
        runs, _, native = synthetic_protein(args.residues, args.frames // args.runs, args.runs, seed=2024)
        for index, ca in enumerate(runs):
            write_frames(folder / f"run{index:02d}.h5", ca=ca, time_ps=np.arange(1, len(ca) + 1) * 10.0)
        np.save(folder / "native.npy", native)
        del runs
        generated = time.monotonic() - started
        threads = str(args.threads)
        env = {**os.environ, "OMP_NUM_THREADS": threads, "OPENBLAS_NUM_THREADS": threads, "MKL_NUM_THREADS": threads}
        started = time.monotonic()
        result = subprocess.run(
            [sys.executable, __file__, "--child", str(folder)]
            + (["--max-features", str(args.max_features)] if args.max_features else []),
            capture_output=True,
            text=True,
            env=env,
        )
        wall = time.monotonic() - started
        if result.returncode:
            sys.exit(result.stderr[-3000:])
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
        measured = json.loads(result.stdout.strip().splitlines()[-1])
        measured["log"] = result.stderr.splitlines()[-12:]
    n_features = measured["features"]["n_features"]
    data_bytes = 2 * args.frames * args.residues * 3 * 4
    record = {
        "benchmark": "tica_large",
        "command": "benchmarks/tica_large.py "
        + " ".join(f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items() if k not in ("output", "child")),
        "residues": args.residues,
        "frames": args.frames,
        "runs": args.runs,
        "blas_threads": args.threads,
        "tica": {**settings, "features": {**section_defaults("tica.features"), **settings["features"]}},
        "generate_s": round(generated, 1),
        "child_wall_s": round(wall, 1),
        **measured,
        "peak_rss_gb": round(peak / 2**30, 3),
        "estimated_gb": round(fit_memory_bytes(n_features, data_bytes=data_bytes) / 2**30, 3),
        "goal": {"memory_gb": 4, "wall_s": 300},
        "machine": {
            "cpus": os.cpu_count(),
            "processor": platform.processor() or platform.machine(),
            "load_average_1_5_15": [round(x, 2) for x in os.getloadavg()],
            "python": platform.python_version(),
            "numpy": np.__version__,
        },
    }
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text(json.dumps(record, indent=2) + "\n")
    print(json.dumps(record, indent=2))


if __name__ == "__main__":
    main()
