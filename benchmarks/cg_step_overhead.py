"""CG engine per-step fixed cost (everything but the model) before and after the device-side step loop,
in one process: the engine at ``--before`` (default ec6f702, read with ``git show``) and this checkout's.

The model call is replaced by a cheap harmonic well around the basis structure, so what is timed is
the engine's own work per step (noise, integration, explosion checks, bookkeeping). Chignolin-sized
chain (10 beads), torch on the CPU, one thread, best of 5 repeats of 100 steps.

Usage: .venv/bin/python benchmarks/cg_step_overhead.py [--before ec6f702]
Writes benchmarks/results/cg_step_overhead.json.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from westbench.cg.engine import CGEngine  # noqa: E402
from westbench.cg.model import CGModel, save_model  # noqa: E402
from westbench.cg.prior import fit_prior  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="ec6f702")
    parser.add_argument("--walkers", type=int, nargs="*", default=[1, 120])
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    source = subprocess.run(
        ["git", "show", f"{args.before}:src/westbench/cg/engine.py"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    (folder / "engine_before.py").write_text(source)
    spec = importlib.util.spec_from_file_location("engine_before", folder / "engine_before.py")
    before = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(before)
    torch.set_num_threads(1)
    chain = np.zeros((10, 3))
    chain[:, 0] = 0.38 * np.arange(10)
    model = CGModel({"p": "GYDPETGTWG"}, network=None)
    model.set_prior("p", fit_prior((chain + np.random.default_rng(0).normal(0, 0.01, (300, 10, 3))).astype(np.float32)))
    save_model(model, folder / "m.pt")
    anchor = torch.as_tensor(chain, dtype=torch.float32)
    engines = {}
    for name, cls in (("before", before.CGEngine), ("after", CGEngine)):
        engine = cls(
            folder / "m.pt",
            "p",
            basis_positions=chain,
            bead_mass_amu=110.0,
            device="cpu",
            threads=1,
            explosion={"bond_min_angstrom": 0.1, "bond_max_angstrom": 100.0},
        )
        engine.forces = lambda x: -2000.0 * (x - anchor)  # the stand-in model
        engines[name] = engine
    report = {"before": args.before, "torch": torch.__version__, "ms_per_step": {}}
    for walkers in args.walkers:
        starts = [engines["after"].basis_state()] * walkers
        seeds = list(range(1, walkers + 1))
        best = {}
        for _ in range(5):
            for name, engine in engines.items():
                start = time.perf_counter()
                engine.propagate(starts, 100, 10, seeds)
                best[name] = min(best.get(name, np.inf), (time.perf_counter() - start) / 100)
        report["ms_per_step"][str(walkers)] = {k: round(1000 * v, 3) for k, v in best.items()}
        report["ms_per_step"][str(walkers)]["ratio"] = round(best["before"] / best["after"], 2)
        print(walkers, report["ms_per_step"][str(walkers)], flush=True)
    path = ROOT / "benchmarks" / "results" / "cg_step_overhead.json"
    path.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
