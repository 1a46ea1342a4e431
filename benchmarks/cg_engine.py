"""Benchmark the CG engine (batched Langevin under a CG model) on the default config's chignolin.

Measures segments per second (1000 CG steps per segment, the published segment length) for
batches of 1 and 120 walkers (the published comparison ran 120 segments per iteration), with
the default config's trained fulltrained model (tiny network) and with the published architecture
(embedding 128, 4 layers, 20 RBF; untrained weights, which cost the same) on the same prior.

Needs the default workflow's CG models (`bash tools/run.sh` first).
Usage: .venv/bin/python benchmarks/cg_engine.py [--steps 100] [--threads 2]
Writes benchmarks/results/cg_engine.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import torch  # noqa: E402

from westbench.cg.engine import CGEngine  # noqa: E402
from westbench.cg.model import CGModel, load_energy_model, save_model  # noqa: E402
from westbench.config import validate_config  # noqa: E402


def segments_per_second(model_path, basis, steps, batch, seed=1):
    engine = CGEngine(model_path, "chignolin", basis_pdb=basis, device="cpu")
    starts = [engine.basis_state()] * batch
    engine.propagate(starts, 10, 10, list(range(seed, seed + batch)))  # warm-up
    began = time.perf_counter()
    results = engine.propagate(starts, steps, steps // 10, list(range(seed, seed + batch)))
    seconds = time.perf_counter() - began
    return {
        "batch": batch,
        "steps": steps,
        "seconds": round(seconds, 3),
        "ms_per_step": round(1000 * seconds / steps, 3),
        "segments_per_s_at_1000_steps": round(batch * steps / 1000 / seconds, 3),
        "ended": sum(r.status != "ok" for r in results),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    protein = ROOT / "results" / "chignolin"
    trained, basis = protein / "cg" / "fulltrained" / "model.pt", protein / "prepare" / "implicit.pdb"
    published = validate_config({"proteins": [{"id": "p", "name": "p", "sequence": "GY", "source": "sequence"}]})
    sequences = json.loads(trained.with_suffix(".json").read_text())["kwargs"]["sequences"]
    big = CGModel(sequences, network=published["cg"]["model"])
    big.set_prior("chignolin", load_energy_model(trained, "chignolin").prior)
    folder = Path(tempfile.mkdtemp())
    save_model(big, folder / "published.pt")
    rows = []
    for name, path in (
        ("default (embedding 16, 2 layers, 8 RBF)", trained),
        ("published (embedding 128, 4 layers, 20 RBF)", folder / "published.pt"),
    ):
        for batch in (1, 120):
            rows.append({"model": name, **segments_per_second(path, basis, args.steps, batch)})
            print(rows[-1], flush=True)
    out = ROOT / "benchmarks" / "results" / "cg_engine.json"
    out.write_text(
        json.dumps(
            {
                "machine": platform.platform(),
                "torch": torch.__version__,
                "threads": args.threads,
                "device": "cpu",
                "beads": 10,
                "rows": rows,
            },
            indent=2,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
