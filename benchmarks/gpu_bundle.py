"""Build the folder that `benchmarks/gpu_session.sh` needs on a lent GPU machine (carried with the call).

The bundle (default ``benchmarks/gpu_bundle/``, git-ignored, well under the device tool's 64 MiB):

- ``results/<protein>/prepare/implicit{.xml,_state.xml,.pdb}`` (and ``explicit*`` when the source run
  has them), ``results/<protein>/tica/model.{npz,json}``, ``results/<protein>/cg/fulltrained/model.{pt,json}``:
  copied from a finished default run (``--from-results results``), or, with ``--stand-in``, built here
  in about 20 s: implicit chignolin from its sequence, a TICA model on C-alpha distances of a short
  MD run, and a prior-only CG model fitted to the same frames (we_throughput.py puts the published
  network on it). A stand-in measures speed and exercises every code path; it is not a trained model.
- ``wheels/`` (``--wheels``): the cp312 manylinux wheels the device's Python lacks (docs/engines.md lists
  them; shared/notes/gpu.md says how they were found to work), downloaded with pip.

Usage: python benchmarks/gpu_bundle.py [--from-results results | --stand-in] [--wheels] [--output DIR]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

PROTEIN, SEQUENCE = "chignolin", "GYDPETGTWG"
#: Wheels for the device's python3.12 (no registry there); versions as pinned in the project's environment.
WHEELS = [
    "openmm==8.6.1",
    "openmm-cuda-13==8.6.1",
    "westpa==2022.16",
    "mdtraj==1.11.1.post2",
    "deeptime==0.5.0",
    "tables",
    "numexpr",
    "blosc2",
    "ndindex",
    "platformdirs",
    "pyzmq",
    "blessings",
    "jsonschema==4.26.0",
    "jsonschema-specifications",
    "referencing",
    "rpds-py",
    "msgpack",
    "py-cpuinfo",
]
PLATFORMS = [f"manylinux_2_{n}_x86_64" for n in (17, 24, 27, 28, 31, 34)] + ["manylinux2014_x86_64", "any"]
FILES = {
    "prepare": [
        "implicit.xml",
        "implicit_state.xml",
        "implicit.pdb",
        "explicit.xml",
        "explicit_state.xml",
        "explicit.pdb",
    ],
    "tica": ["model.npz", "model.json"],
    "cg/fulltrained": ["model.pt", "model.json"],
}


def copy_results(source: Path, target: Path, protein: str = PROTEIN) -> list[str]:
    """Copy the files the session reads from a finished run; returns those copied."""
    copied = []
    for folder, names in FILES.items():
        for name in names:
            path = source / protein / folder / name
            if path.is_file():
                (target / protein / folder).mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, target / protein / folder / name)
                copied.append(f"{folder}/{name}")
    required = {"prepare/implicit.xml", "tica/model.npz", "cg/fulltrained/model.pt"}
    if not required <= set(copied):
        sys.exit(
            f"{source / protein} lacks {sorted(required - set(copied))}: finish the default run "
            "(`bash tools/run.sh`) or build a stand-in (--stand-in)"
        )
    return copied


def stand_in(target: Path, protein: str = PROTEIN, frames: int = 200, every: int = 10, seed: int = 1) -> list[str]:
    """Implicit chignolin, a TICA model and a prior-only CG model built here (see the module docstring)."""
    import openmm
    from openmm import unit

    from westbench.cg.model import CGModel, save_model
    from westbench.cg.prior import fit_prior
    from westbench.config import ProteinSpec
    from westbench.geometry.features import ca_atom_indices, pairwise_distances
    from westbench.prepare import fix_structure
    from westbench.simulation.integration import make_integrator, minimize
    from westbench.simulation.systems import build_system, write_system
    from westbench.structures.peptide import write_extended_peptide
    from westbench.tica import FEATURE_CA_DISTANCES, TicaModel

    prepare = target / protein / "prepare"
    prepare.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        write_extended_peptide(SEQUENCE, Path(scratch) / "in.pdb")
        spec = ProteinSpec(protein, protein, None, SEQUENCE, None, None, "sequence", None)
        topology, positions, _ = fix_structure(Path(scratch) / "in.pdb", spec, seed=seed)
    system, modeller, _ = build_system("implicit", topology, positions, {})
    state, _ = minimize(system, modeller.positions, {"minimize_max_iterations": 100})
    write_system(
        system,
        state,
        modeller.topology,
        prepare / "implicit.xml",
        prepare / "implicit_state.xml",
        prepare / "implicit.pdb",
    )
    integrator = make_integrator({})
    integrator.setRandomNumberSeed(seed)
    context = openmm.Context(system, integrator, openmm.Platform.getPlatformByName("CPU"), {"Threads": "1"})
    context.setState(state)
    context.setVelocitiesToTemperature(300 * unit.kelvin, seed)
    ca = np.array(ca_atom_indices(modeller.topology))
    trajectory = []
    for _ in range(frames):
        integrator.step(every)
        trajectory.append(context.getState(getPositions=True).getPositions(asNumpy=True)._value[ca])
    trajectory = np.asarray(trajectory, dtype=np.float32)
    features = pairwise_distances(trajectory)
    centred = features - features.mean(0)
    _, _, vectors = np.linalg.svd(centred, full_matrices=False)  # PCA as a stand-in for TICA's directions
    projection = vectors[:2].T
    offset = -features.mean(0) @ projection
    TicaModel(
        projection,
        offset,
        np.ones(2),
        protein,
        FEATURE_CA_DISTANCES,
        features.shape[1],
        1,
        every * 0.004,
        {"stand_in": True},
    ).save(target / protein / "tica" / "model")
    model = CGModel({protein: SEQUENCE}, network={"embedding": 16, "interaction_layers": 1, "rbf": 8})
    model.set_prior(protein, fit_prior(trajectory, min_samples=5))
    save_model(model, target / protein / "cg" / "fulltrained" / "model.pt", extra={"stand_in": True})
    return [
        "prepare/implicit.xml",
        "prepare/implicit_state.xml",
        "prepare/implicit.pdb",
        "tica/model.npz",
        "tica/model.json",
        "cg/fulltrained/model.pt",
        "cg/fulltrained/model.json",
    ]


def download_wheels(folder: Path, python_version: str = "3.12") -> list[str]:
    """pip-download the wheels of :data:`WHEELS` for the device's CPython (binary only, no dependencies)."""
    folder.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--python-version",
        python_version,
        "--implementation",
        "cp",
        "--dest",
        str(folder),
    ]
    for platform in PLATFORMS:
        command += ["--platform", platform]
    subprocess.run(command + WHEELS, check=True)
    # pdbfixer has no wheel on PyPI (pure Python): build one (the stand-in bundle prepares with it).
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", str(folder), "pdbfixer==1.12.0"], check=True
    )
    return sorted(p.name for p in folder.glob("*.whl"))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--from-results", help="a finished default run's results folder")
    source.add_argument("--stand-in", action="store_true", help="build a stand-in system and models here")
    parser.add_argument("--wheels", action="store_true", help="also download the device's wheels")
    parser.add_argument("--output", default=str(ROOT / "benchmarks" / "gpu_bundle"))
    args = parser.parse_args(argv)
    output = Path(args.output)
    shutil.rmtree(output / "results", ignore_errors=True)
    results = output / "results"
    files = stand_in(results) if args.stand_in else copy_results(Path(args.from_results), results)
    manifest = {"protein": PROTEIN, "files": files, "stand_in": bool(args.stand_in)}
    if args.wheels:
        manifest["wheels"] = download_wheels(output / "wheels")
    (output / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    size = sum(p.stat().st_size for p in output.rglob("*") if p.is_file())
    print(f"bundle {output}: {len(files)} files, {size / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
