"""Per-segment cost of `run_we` around an engine that does no MD, before (``--before``, default ec6f702,
extracted with ``git archive``) and after (this checkout), each in a fresh process, imports excluded.

Published binning (7 MAB bins per TIC, 3 walkers per bin), 8 iterations (546 segments), the default
run's TICA progress coordinate, 1000-step segments with frames every 100 (the engine only draws them).
Before: one segment per propagator call (the OpenMM engines' block size then); after: the block size
the pipeline now gives the CPU OpenMM engine (a worker's share of an iteration: 147).

Usage: .venv/bin/python benchmarks/we_overhead.py [--before ec6f702] [--repeats 2]
Writes benchmarks/results/we_overhead.json.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

RUN = r"""
import sys, time, tempfile, json
from pathlib import Path
src, block, results = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
sys.path.insert(0, src); sys.path.insert(0, {root!r})
import deeptime, westpa.cli.core.w_run, westpa.cli.core.w_init  # imported before the clock starts
import westbench.tica, westbench.we.propagator, westbench.we.plugin
from westbench.we.run import run_we
from westbench.engines.openmm_engine import OpenMMEngine
prepared = results / "prepare"
engine = OpenMMEngine(prepared / "implicit.xml", prepared / "implicit_state.xml", prepared / "implicit.pdb")
beads = engine.beads(engine.basis_state()).tolist()
null = {{"class": "benchmarks.we_throughput:NullEngine", "options": {{"positions": beads}}}}
cfg = {{"engine": null, "block_size": block, "seed": 1, "bins_per_dim": 7, "walkers_per_bin": 3,
       "pcoord": {{"type": "tica", "model": str(results / "tica" / "model"), "protein": "chignolin", "ndim": 2}},
       "steps_per_segment": 1000, "save_every": 100}}
work = Path(tempfile.mkdtemp())
start = time.perf_counter()
run_we(work / "r", cfg=cfg, segs_per_state=3, max_iterations=8)
wall = time.perf_counter() - start
import h5py
with h5py.File(work / "r" / "west.h5") as handle:
    segments = sum(len(handle[f"iterations/iter_{{n:08d}}/seg_index"]) for n in range(1, 9))
ms_per_segment = round(1000 * wall / segments, 3)
print(json.dumps({{"wall_seconds": round(wall, 3), "segments": segments, "ms_per_segment": ms_per_segment}}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="ec6f702")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--results", default=str(ROOT / "results" / "chignolin"))
    args = parser.parse_args()
    old = Path(tempfile.mkdtemp())
    archive = subprocess.run(
        ["git", "archive", args.before, "src", "config"], cwd=ROOT, check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
    script = RUN.format(root=str(ROOT))
    report = {"before": args.before, "runs": {"before": [], "after": []}}
    for _ in range(args.repeats):
        for name, src, block in (("before", old / "src", 1), ("after", ROOT / "src", 147)):
            out = subprocess.run(
                [sys.executable, "-c", script, str(src), str(block), args.results],
                cwd=ROOT,
                capture_output=True,
                text=True,
                env={"PATH": "/usr/bin:/bin"},
                check=True,
            )
            report["runs"][name].append(json.loads(out.stdout.strip().splitlines()[-1]))
            print(name, report["runs"][name][-1], flush=True)
    for name in ("before", "after"):
        report[f"{name}_ms_per_segment"] = min(r["ms_per_segment"] for r in report["runs"][name])
    (ROOT / "benchmarks" / "results" / "we_overhead.json").write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
