"""Benchmark the in-process WE propagator on the default config's implicit-solvent chignolin.

Measures, on one machine, in one run:
1. the share of w_run wall time spent inside OpenMM stepping (goal: >= 90 %);
2. segments per second of the in-process propagator versus a baseline that starts a
   new Python process per segment (the execution model of the published code, which ran
   a shell script per segment).

Needs the default workflow's prepared system and TICA model (`bash tools/run.sh` first).
Usage: .venv/bin/python benchmarks/we_propagator.py [--iterations 5] [--baseline-segments 20]
Writes benchmarks/results/we_propagator.json.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from westbench.engines.openmm_engine import OpenMMEngine  # noqa: E402

STEPPING = {"seconds": 0.0}


class TimedOpenMMEngine(OpenMMEngine):
    """The OpenMM engine with a stopwatch around integrator.step (the MD itself)."""

    @property
    def context(self):
        first = self._context is None
        context = super().context
        if first:
            step = self.integrator.step

            def timed_step(n):
                start = time.perf_counter()
                step(n)
                STEPPING["seconds"] += time.perf_counter() - start

            self.integrator.step = timed_step
        return context


BASELINE = """
import sys, time, numpy as np
sys.path.insert(0, {src!r})
from westbench.engines.openmm_engine import OpenMMEngine
engine = OpenMMEngine({system!r}, {state!r}, {pdb!r}, platform={{"name": "CPU", "deterministic": True}}, threads=1)
result = engine.propagate([engine.basis_state()], {steps}, {save}, [{seed}])[0]
np.savez({out!r}, frames=result.frames, positions=result.final.positions)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--protein", default="chignolin")
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--baseline-segments", type=int, default=20)
    args = parser.parse_args()

    import yaml

    from westbench.config import validate_config
    from westbench.we.engine_entry import openmm_engine_spec
    from westbench.we.run import run_we

    config = validate_config(yaml.safe_load((ROOT / "config" / "config.yaml").read_text()))
    we, prep = config["we"], config["preparation"]
    results = ROOT / "results" / args.protein
    files = [results / "prepare" / name for name in ("implicit.xml", "implicit_state.xml", "implicit.pdb")]
    spec = openmm_engine_spec(*files, prep, {"name": "CPU", "deterministic": True}, threads=1)
    spec["class"] = "benchmarks.we_propagator:TimedOpenMMEngine"
    sys.path.insert(0, str(ROOT))
    cfg = {
        "engine": spec,
        "pcoord": {"type": "tica", "model": str(results / "tica" / "model"), "protein": args.protein, "ndim": 2},
        "seed": 1,
        "bins_per_dim": we["bins_per_tic"],
        "walkers_per_bin": we["walkers_per_bin"],
        "steps_per_segment": we["steps_per_segment"],
        "save_every": we["save_every"],
    }
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        run_we(
            Path(folder) / "run",
            cfg=cfg,
            segs_per_state=we["initial_walkers"],
            work_manager="serial",
            max_iterations=args.iterations,
        )
        wall = time.perf_counter() - start
        # WESTPA imported this file as the module named in west.cfg: its stopwatch holds the time.
        stepping = sys.modules["benchmarks.we_propagator"].STEPPING["seconds"]
        import h5py

        with h5py.File(Path(folder) / "run" / "west.h5", "r") as handle:
            segments = sum(len(handle[f"iterations/iter_{n:08d}/seg_index"]) for n in range(1, args.iterations + 1))

        script = Path(folder) / "one_segment.py"
        baseline_start = time.perf_counter()
        for index in range(args.baseline_segments):
            script.write_text(
                BASELINE.format(
                    src=str(ROOT / "src"),
                    system=str(files[0]),
                    state=str(files[1]),
                    pdb=str(files[2]),
                    steps=we["steps_per_segment"],
                    save=we["save_every"],
                    seed=index + 1,
                    out=str(Path(folder) / f"seg{index}.npz"),
                )
            )
            subprocess.run([sys.executable, str(script)], check=True)
        baseline_wall = time.perf_counter() - baseline_start

    report = {
        "protein": args.protein,
        "engine": "implicit (OpenMM CPU, 1 thread)",
        "iterations": args.iterations,
        "segments": segments,
        "steps_per_segment": we["steps_per_segment"],
        "w_run_wall_seconds": round(wall, 3),
        "openmm_stepping_seconds": round(stepping, 3),
        "stepping_share_of_w_run": round(stepping / wall, 4),
        "in_process_segments_per_second": round(segments / wall, 3),
        "baseline_segments": args.baseline_segments,
        "baseline_wall_seconds": round(baseline_wall, 3),
        "process_per_segment_segments_per_second": round(args.baseline_segments / baseline_wall, 3),
    }
    report["speedup_in_process_vs_process_per_segment"] = round(
        report["in_process_segments_per_second"] / report["process_per_segment_segments_per_second"], 2
    )
    out = ROOT / "benchmarks" / "results" / "we_propagator.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
