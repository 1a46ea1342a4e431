"""How long the calibration study's ground truth must equilibrate before its known answers hold.

Half the study's runs start from the native structure, half from a short hot run. For each equilibration length
this script makes a ground truth as rule ``calibration_groundtruth`` does (the study's reference model, 256 runs,
the schema's ``calibration.groundtruth`` settings otherwise) and reports what a residual memory of the starts does:
the two families' per-run mean energy and TIC 0/1 compared by Welch's t-test
(:func:`westbench.calibration.equilibration.run_mean_tests`), and the known answer of a hotter engine (W1 of TIC 0,
the ground truth reweighted from T to ``--temperature-scale`` T) computed from all runs and from each family alone.
A ground truth that forgot its starts gives the same answer from either family, within their noise.

    .venv/bin/python benchmarks/groundtruth_equilibration.py --study results/calibration/chignolin \
        [--equilibration-ps 40 200 400 1000] [--seed 5]

``--study``: a finished study's folder (its ``models/reference/model.pt``, ``native.pdb`` and ``tica/model.json``);
the settings are the embedded default's (config/config.yaml).
Writes benchmarks/results/groundtruth_equilibration.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from westbench.calibration.equilibration import run_mean_tests  # noqa: E402
from westbench.calibration.groundtruth import run_reference_groundtruth  # noqa: E402
from westbench.calibration.reweighting import weights_from_energies  # noqa: E402
from westbench.calibration.study import REFERENCE, engine_langevin  # noqa: E402
from westbench.cg.native import native_ca  # noqa: E402
from westbench.config import validate_config  # noqa: E402
from westbench.io.frames import concatenate, read_frames  # noqa: E402
from westbench.metrics.divergences import wasserstein_1d  # noqa: E402
from westbench.tica.model import TicaModel  # noqa: E402


def known_answer(tic0: np.ndarray, energy: np.ndarray, keep: np.ndarray, temperature_k: float, scale: float) -> float:
    """W1 of TIC 0 between all frames and the frames ``keep`` reweighted from ``temperature_k`` to ``scale`` x it."""
    weights = weights_from_energies(energy[keep], energy[keep], temperature_k, scale * temperature_k)
    return float(wasserstein_1d(tic0, tic0[keep], None, weights))


def measure(study: Path, equilibration_ps: float, seed: int, scale: float, folder: Path) -> dict:
    config = validate_config(yaml.safe_load((ROOT / "config" / "config.yaml").read_text()))
    langevin = engine_langevin(config["calibration"], REFERENCE)
    settings = config["calibration"]["groundtruth"]
    paths = [folder / f"run{i:04d}.h5" for i in range(int(settings["runs"]))]
    started = time.monotonic()
    run_reference_groundtruth(
        study / "models" / "reference" / "model.pt",
        native_ca(study / "native.pdb"),
        paths,
        langevin,
        {**settings, "equilibration_ps": equilibration_ps},
        seed=seed,
    )
    seconds = time.monotonic() - started
    runs = [read_frames(path) for path in paths]
    frames = concatenate([{**run, "traj": np.full(len(run["energy"]), i)} for i, run in enumerate(runs)])
    frames["tics"] = TicaModel.load(study / "tica" / "model.json").project(frames["ca"])
    hot = frames["traj"] % 2 == 1  # every other run starts hot (westbench.calibration.groundtruth)
    tic0, energy, temperature = frames["tics"][:, 0], frames["energy"], float(langevin["temperature_k"])
    families = {"native": range(0, len(runs), 2), "hot": range(1, len(runs), 2)}
    return {
        "equilibration_ps": equilibration_ps,
        "groundtruth_seconds": round(seconds, 1),
        "drift": run_mean_tests(frames, families),
        f"known_answer_w1_tic0_at_{scale:g}T": {
            "all_runs": round(known_answer(tic0, energy, np.ones_like(hot), temperature, scale), 4),
            "native_runs": round(known_answer(tic0, energy, ~hot, temperature, scale), 4),
            "hot_runs": round(known_answer(tic0, energy, hot, temperature, scale), 4),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--study", type=Path, required=True)
    parser.add_argument("--equilibration-ps", type=float, nargs="+", default=[40.0, 200.0, 400.0, 1000.0])
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--temperature-scale", type=float, default=1.2)
    args = parser.parse_args()
    results = []
    for length in args.equilibration_ps:
        with tempfile.TemporaryDirectory() as folder:
            results.append(measure(args.study, length, args.seed, args.temperature_scale, Path(folder)))
        print(json.dumps(results[-1]), flush=True)
    out = ROOT / "benchmarks" / "results" / "groundtruth_equilibration.json"
    out.write_text(
        json.dumps(
            {"study": args.study.name, "seed": args.seed, "machine": platform.machine(), "results": results}, indent=1
        )
        + "\n"
    )
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
