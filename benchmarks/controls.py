"""Time the controls of one protein, what rule ``controls`` runs, on a finished run's ground truth, and keep what
they found.

:func:`westbench.metrics.controls.run_controls` from the TICA folder's files (``groundtruth_frames.h5``,
``model.npz``, ``macrostates.npz``) to ``controls.json``, at the schema's ``controls`` and ``metrics`` settings
(every control, 200 BCa replicates, 100 floor splits), ``--repeats`` times; then, with ``--null-seeds N``, the
null half alone under N seeds (how often a correct engine is wrongly separated). The wall time excludes the
interpreter's start and imports (about 2 s on the reference machine), which the rule's ``benchmark:`` file includes.

    .venv/bin/python benchmarks/controls.py --tica-dir ../baseline/results/chignolin/tica --name default
    .venv/bin/python benchmarks/controls.py --tica-dir ../baseline/results/calibration/chignolin/tica \
        --name calibration --null-seeds 10

Writes benchmarks/results/controls_<name>.json.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from westbench.config import section_defaults  # noqa: E402
from westbench.io.frames import read_frames  # noqa: E402
from westbench.metrics.controls import ControlsEstimator, run_controls  # noqa: E402
from westbench.plan.jobkeys import job_keys  # noqa: E402
from westbench.tica.model import TicaModel  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tica-dir", required=True, help="a finished run's results/<protein>/tica folder")
    parser.add_argument("--name", required=True, help="the results file's suffix")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--null-seeds", type=int, default=0)
    args = parser.parse_args()

    folder = Path(args.tica_dir)
    metrics = section_defaults("metrics")
    metric_settings = {key: metrics[key] for key in job_keys("controls_metrics")}
    settings = {k: v for k, v in section_defaults("controls").items() if k != "enabled"}
    times = []
    with tempfile.TemporaryDirectory() as out:
        for _ in range(args.repeats):
            start = time.perf_counter()
            record = run_controls(
                folder / "groundtruth_frames.h5",
                folder / "model.npz",
                folder / "macrostates.npz",
                settings,
                metric_settings,
                args.seed,
                protein=folder.parent.name,
                json_path=Path(out) / "controls.json",
                csv_path=Path(out) / "controls.csv",
            )
            times.append(time.perf_counter() - start)
    null_runs = []
    if args.null_seeds:
        frames, model = read_frames(folder / "groundtruth_frames.h5"), TicaModel.load(folder / "model.npz")
        for seed in range(args.null_seeds):
            result = ControlsEstimator({"kinds": ["null_half"]}, metric_settings, seed=seed).fit(frames, model)
            null_runs.append(result.negatives["null_half"]["separated"])
    result = {
        "tica_dir": str(folder),
        "groundtruth_frames": record["settings"]["reference_frames"] + record["settings"]["control_source_frames"],
        "units": record["settings"]["units"],
        "controls": len(record["controls"]),
        "wall_s": [round(t, 2) for t in times],
        "load_average_1min_after": round(os.getloadavg()[0], 2),
        "detects": record["detects"],
        "caught_by_sanity": record["caught_by_sanity"],
        "negatives": record["negatives"],
        "resolution_w1": {
            name: {k: entry[k] for k in ("smallest_separated", "largest_within_noise", "resolved")}
            for name, entry in record["resolution"]["w1"].items()
        },
        "null_seeds": args.null_seeds,
        "null_cells_separated": {"cells": sum(len(s) for s in null_runs), "of": 18 * len(null_runs)},
        "null_separated_by_seed": null_runs,
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    path = Path(__file__).parent / "results" / f"controls_{args.name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(message)s")
    main()
