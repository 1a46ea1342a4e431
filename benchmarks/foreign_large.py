"""Peak memory of a large foreign protein through the import and the metric suite: what the rules run, stage by stage.

A generated 600-residue protein (tests/unit/tica/synthetic.py: slow hinge motions and fast noise) written as a
foreign project would hand it over: DCD trajectories of its backbone (N, CA, C, O: 2,400 atoms) with a topology PDB
and no frame times. Each stage runs as its rule does, in its own process under ``/usr/bin/time -v`` (peak resident
set size, wall time):

1. ``groundtruth_import`` (:func:`westbench.groundtruth.importer.import_run`), once per ground-truth trajectory, and
   once more on one long trajectory (``--long-frames``, not part of the ground truth): the import's memory does not
   grow with a file's length;
2. ``fit_tica`` (:func:`westbench.tica.fit_groundtruth` at the schema's ``tica`` settings, lag 10, 10 TICs);
3. ``macrostates`` (:func:`westbench.metrics.macrostate_fit.fit_macrostate_model`);
4. ``external_import`` (:func:`westbench.external.import_samples`, ``kind: trajectories``: every model file);
5. ``metric_suite`` (:func:`westbench.metrics.score.score_engine` at the schema's ``metrics`` settings, with the
   per-engine figures).

    .venv/bin/python benchmarks/foreign_large.py [--residues 600] [--groundtruth-frames 10000] [--model-frames 20000]

Writes benchmarks/results/foreign_large.json. Goal (issue 51): every stage at most 4 GB.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

#: Atoms per residue of the written trajectories (backbone), and their offsets (nm) along x from the C-alpha.
BACKBONE = (("N", -0.12), ("CA", 0.0), ("C", 0.12), ("O", 0.2))
AMINO = "ACDEFGHIKLMNPQRSTVWY"
THREE = dict(zip(AMINO, "ALA CYS ASP GLU PHE GLY HIS ILE LYS LEU MET ASN PRO GLN ARG SER THR VAL TRP TYR".split()))
INTERVAL_PS = 10.0


def topology(sequence: str):
    import mdtraj

    top = mdtraj.Topology()
    chain = top.add_chain()
    for number, letter in enumerate(sequence, start=1):
        residue = top.add_residue(THREE[letter], chain, resSeq=number)
        for name, _ in BACKBONE:
            top.add_atom(name, mdtraj.element.get_by_symbol(name[0]), residue)
    return top


def atoms_of(ca: np.ndarray) -> np.ndarray:
    offsets = np.array([[dx, 0.0, 0.0] for _, dx in BACKBONE], dtype=np.float32)
    return (ca[:, :, None, :] + offsets[None, None]).reshape(len(ca), -1, 3)


def generate(folder: Path, residues: int, groundtruth_frames: int, model_frames: int, runs: int, long: int) -> dict:
    """Ground-truth and model DCDs (model: a second draw of the same process), the topology and prepared PDBs."""
    import mdtraj

    from tests.unit.tica.synthetic import synthetic_protein

    sequence = "".join(np.random.default_rng(0).choice(list(AMINO), size=residues))
    top = topology(sequence)
    per_run = max(groundtruth_frames, model_frames) // runs
    # One protein: the model's runs are further runs of the ground truth's process (an honest engine).
    trajectories, _, _ = synthetic_protein(residues, per_run, 2 * runs, seed=2024)
    for index, ca in enumerate(trajectories):
        kind, frames = ("groundtruth", groundtruth_frames) if index < runs else ("model", model_frames)
        (folder / kind).mkdir(exist_ok=True)
        ca = ca[: frames // runs]
        mdtraj.Trajectory(atoms_of(ca), top).save_dcd(str(folder / kind / f"run{index % runs}.dcd"))
        if index == 0:
            mdtraj.Trajectory(atoms_of(ca[:1]), top).save_pdb(str(folder / "system.pdb"))
            mdtraj.Trajectory(atoms_of(ca[:1]), top).save_pdb(str(folder / "prepared.pdb"))
    del trajectories
    if long:
        ca = synthetic_protein(residues, long, 1, seed=2024)[0][0]
        mdtraj.Trajectory(atoms_of(ca), top).save_dcd(str(folder / "long.dcd"))
    return {"sequence_length": len(sequence), "atoms": residues * len(BACKBONE)}


def stage(name: str, folder: Path, index: int = 0) -> None:
    """One stage, as its rule runs it (in this process: the parent measures it)."""
    from westbench.config import section_defaults

    if name in ("groundtruth_import", "groundtruth_import_long"):
        from westbench.groundtruth.importer import import_run

        long = name.endswith("long")
        out = folder / ("long" if long else "runs") / f"run{index}"
        out.mkdir(parents=True, exist_ok=True)
        import_run(
            folder / "long.dcd" if long else folder / "groundtruth" / f"run{index}.dcd",
            folder / "system.pdb",
            folder / "prepared.pdb",
            {"trajectory": out / "trajectory.dcd", "topology": out / "topology.pdb", "frames": out / "frames.h5"},
            protein="large",
            start=f"run{index}",
            interval_ps=INTERVAL_PS,
        )
    elif name == "fit_tica":
        from westbench.geometry.features import ca_positions
        from westbench.io.frames import write_frames
        from westbench.tica import fit_groundtruth

        model, frames = fit_groundtruth(
            sorted((folder / "runs").glob("run*/frames.h5")),
            "large",
            10,
            10,
            features=section_defaults("tica.features"),
            reference=ca_positions(folder / "prepared.pdb"),
            seed=2024,
        )
        (folder / "tica").mkdir(exist_ok=True)
        model.save(folder / "tica" / "model")
        write_frames(folder / "tica" / "groundtruth_frames.h5", attrs=model.frames_attrs(), **frames)
    elif name == "macrostates":
        from westbench.metrics.macrostate_fit import fit_macrostate_model

        fit_macrostate_model(
            folder / "tica" / "groundtruth_frames.h5",
            section_defaults("metrics"),
            2024,
            folder / "tica" / "macrostates.npz",
        )
    elif name == "external_import":
        from westbench.external import import_samples
        from westbench.geometry.coverage_grid import CoverageGrid
        from westbench.io.frames import read_frames
        from westbench.tica import TicaModel

        grid = CoverageGrid(read_frames(folder / "tica" / "groundtruth_frames.h5")["tics"][:, :2])
        spec = {
            "kind": "trajectories",
            "trajectories": str(folder / "model" / "run*.dcd"),
            "topology": str(folder / "system.pdb"),
            "weights": None,
            "stride": 1,
            "save_interval_ps": INTERVAL_PS,
            "residues": None,
        }
        import_samples(
            spec,
            folder / "prepared.pdb",
            folder / "model_frames.h5",
            folder / "cost.csv",
            engine="mine",
            protein="large",
            tica=TicaModel.load(folder / "tica" / "model", protein="large"),
            coverage_grid=grid,
        )
    elif name == "metric_suite":
        from westbench.metrics.score import score_engine

        (folder / "metrics").mkdir(exist_ok=True)
        score_engine(
            folder / "tica" / "groundtruth_frames.h5",
            folder / "model_frames.h5",
            {**section_defaults("metrics"), "seed": 2024},
            protein="large",
            engine="mine",
            json_path=folder / "metrics" / "metrics.json",
            csv_path=folder / "metrics" / "metrics.csv",
            figures_dir=folder / "metrics" / "figures",
            macrostates=folder / "tica" / "macrostates.npz",
        )
    else:
        raise ValueError(name)


def measured(name: str, folder: Path, threads: int, index: int = 0) -> dict:
    """Run one stage under /usr/bin/time -v: its peak resident set size (GB) and wall time (s)."""
    env = {**os.environ, **{k: str(threads) for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}}
    command = ["/usr/bin/time", "-v", sys.executable, __file__, "--child", name, "--index", str(index), str(folder)]
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    if result.returncode:
        sys.exit(f"stage {name} failed:\n{result.stderr[-4000:]}")
    peak_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr).group(1))
    clock = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", result.stderr).group(1)
    seconds = sum(float(part) * 60**k for k, part in enumerate(reversed(clock.split(":"))))
    return {"stage": name, "peak_rss_gb": round(peak_kb / 2**20, 3), "wall_s": round(seconds, 1)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--residues", type=int, default=600)
    parser.add_argument("--groundtruth-frames", type=int, default=10_000)
    parser.add_argument("--model-frames", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=4, help="trajectory files of each (ground truth, model)")
    parser.add_argument("--long-frames", type=int, default=20_000, help="frames of the one long file imported apart")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--output", default=str(ROOT / "benchmarks" / "results" / "foreign_large.json"))
    parser.add_argument("--keep", default=None, help="a folder to keep the generated files and outputs in")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--index", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("folder", nargs="?", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        stage(args.child, Path(args.folder), args.index)
        return
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(args.keep or scratch)
        folder.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        shape = generate(folder, args.residues, args.groundtruth_frames, args.model_frames, args.runs, args.long_frames)
        generated = time.monotonic() - started
        stages = [measured("groundtruth_import", folder, args.threads, index) for index in range(args.runs)]
        if args.long_frames:
            stages.append(measured("groundtruth_import_long", folder, args.threads))
        stages += [measured(name, folder, args.threads) for name in ("fit_tica", "macrostates", "external_import")]
        stages.append(measured("metric_suite", folder, args.threads))
        record_path = folder / "metrics" / "metrics.json"
        scored = json.loads(record_path.read_text())
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    record = {
        "benchmark": "foreign_large",
        "commit": commit.stdout.strip(),
        "command": "benchmarks/foreign_large.py "
        + " ".join(
            f"--{k.replace('_', '-')} {v}"
            for k, v in vars(args).items()
            if k in ("residues", "groundtruth_frames", "model_frames", "runs", "long_frames", "threads")
        ),
        "residues": args.residues,
        **shape,
        "groundtruth_frames": args.groundtruth_frames,
        "model_frames": args.model_frames,
        "files_each": args.runs,
        "long_file_frames": args.long_frames,
        "generate_s": round(generated, 1),
        "stages": stages,
        "peak_rss_gb": max(s["peak_rss_gb"] for s in stages),
        "scored": {
            "frames": scored["frames"],
            "sanity_failed": scored["sanity"]["failed"],
            "verdicts": {m: sorted(set(v.values())) for m, v in scored["metrics"]["we"]["verdicts"].items()},
        },
        "goal": {"memory_gb": 4},
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
