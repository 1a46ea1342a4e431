"""Equality checks of the GPU-only paths of the WE engines (run on a GPU machine; no GPU here).

1. OpenMM implicit copies on CUDA (mixed precision): per-copy forces of ``--copies`` walkers in one
   context against the single-molecule ``NoCutoff`` system on the Reference platform (relative error
   of the force vectors, as OpenMM's own tests compare platforms), and a batched 1000-step segment
   that ends "ok" for every walker.
2. CG engine: the force call captured in CUDA graphs per bucket (padded) against the eager call at 1,
   120 and 1,200 walkers, and ``propagate`` with and without capture (same statuses, frames within
   float32 drift over a few steps).

Needs a finished default run (`bash tools/run.sh`). Exits 1 if a check fails; writes
benchmarks/results/we_gpu_check.json.

Usage: python benchmarks/we_gpu_check.py [--results results] [--protein chignolin] [--copies 128]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))


def openmm_check(results: Path, copies: int) -> dict:
    import openmm
    from openmm import unit

    from westbench.engines import copies as scheme
    from westbench.engines.openmm_engine import OpenMMEngine

    paths = [results / "prepare" / f"implicit{s}" for s in (".xml", "_state.xml", ".pdb")]
    engine = OpenMMEngine(*paths, platform={"name": "CUDA", "precision": "mixed", "fallback": []},
                          batch_walkers=copies)
    basis = engine.basis_state().positions
    rng = np.random.default_rng(0)
    walkers = [basis] + [basis + rng.normal(0, 0.02, basis.shape) for _ in range(copies - 1)]
    system = scheme.copy_system(engine.system, copies, engine.cutoff)
    centers = scheme.slot_centers(copies, engine.cutoff)
    packed = np.concatenate([x - x.mean(0) + c for x, c in zip(walkers, centers)])

    def forces(sys_, positions, name, properties=None):
        context = openmm.Context(sys_, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName(name),
                                 properties or {})
        context.setPositions(positions)
        return context.getState(getForces=True).getForces(asNumpy=True).value_in_unit(
            unit.kilojoule_per_mole / unit.nanometer)

    on_gpu = forces(system, packed, "CUDA", {"Precision": "mixed"}).reshape(copies, -1, 3)
    worst = 0.0
    for x, f in zip(walkers, on_gpu):
        reference = forces(engine.system, x, "Reference")
        error = np.linalg.norm(f - reference, axis=1) / np.maximum(np.linalg.norm(reference, axis=1), 1.0)
        worst = max(worst, float(error.max()))
    results_ = engine.propagate([engine.basis_state()] * copies, 1000, 100, list(range(1, copies + 1)))
    ok = sum(r.status == "ok" for r in results_)
    return {"copies": copies, "cutoff_nm": engine.cutoff, "max_relative_force_error": worst,
            "segment_ok": ok, "passed": bool(worst < 1e-3 and ok == copies)}


def cg_check(results: Path, protein: str) -> dict:
    import torch

    from benchmarks.we_throughput import published_cg_model
    from westbench.cg.engine import BucketedForces, CGEngine

    import tempfile

    model = published_cg_model(results / "cg" / "fulltrained" / "model.pt", protein, Path(tempfile.mkdtemp()))
    basis = results / "prepare" / "implicit.pdb"
    captured = CGEngine(model, protein, basis_pdb=basis, device="cuda")
    eager = CGEngine(model, protein, basis_pdb=basis, device="cuda", capture=False)
    out, passed = {}, True
    graphs = BucketedForces(captured.forces, capture=True)
    for walkers in (1, 120, 1200):
        x = torch.as_tensor(captured.basis, dtype=torch.float32, device="cuda")[None].repeat(walkers, 1, 1)
        x = x + 0.01 * torch.randn_like(x)
        a, b = graphs(x), captured.forces(x)
        error = float(((a - b).norm(dim=-1) / b.norm(dim=-1).clamp(min=1.0)).max())
        out[f"forces_{walkers}"] = error
        passed &= error < 1e-4
    starts = [captured.basis_state()] * 120
    seeds = list(range(1, 121))
    ra, rb = captured.propagate(starts, 20, 10, seeds), eager.propagate(starts, 20, 10, seeds)
    drift = max(float(np.abs(p.frames - q.frames).max()) for p, q in zip(ra, rb))
    same_status = [p.status for p in ra] == [q.status for q in rb]
    out.update(propagate_max_frame_difference_nm=drift, same_status=same_status,
               capture_used=captured.batch_forces.capture, passed=bool(passed and same_status and drift < 1e-3))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default=str(ROOT / "results"))
    parser.add_argument("--protein", default="chignolin")
    parser.add_argument("--copies", type=int, default=128)
    args = parser.parse_args()
    results = Path(args.results) / args.protein
    report = {"openmm": openmm_check(results, args.copies), "cg": cg_check(results, args.protein)}
    path = ROOT / "benchmarks" / "results" / "we_gpu_check.json"
    path.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))
    sys.exit(0 if report["openmm"]["passed"] and report["cg"]["passed"] else 1)


if __name__ == "__main__":
    main()
