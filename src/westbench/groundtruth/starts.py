"""Starting points: hot implicit-solvent runs, TICA, and farthest-point selection in TIC 0/1.

Examples
--------
>>> import numpy as np
>>> points = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 0.0], [0.0, 5.0], [0.1, 0.1]])
>>> picked = farthest_point_selection(points, 3, seed=0)
>>> sorted(picked.tolist()) in ([0, 2, 3], [1, 2, 3], [2, 3, 4])  # one of the close trio, and both far points
True
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path
from typing import Mapping

import numpy as np
import openmm
import pandas as pd
from openmm import app, unit

from westbench.errors import StructureError
from westbench.geometry.features import ca_atom_indices
from westbench.seeds import derive_seed
from westbench.simulation.integration import make_integrator
from westbench.simulation.platforms import create_context
from westbench.tica import choose_features, fit_tica

log = logging.getLogger(__name__)


def farthest_point_selection(points: np.ndarray, count: int, seed: int) -> np.ndarray:
    """Greedy k-centers: a seeded random first point, then repeatedly the point farthest from all chosen.

    Parameters
    ----------
    points : ndarray (n, d)
    count : int
        How many to pick (at most n).
    seed : int

    Returns
    -------
    ndarray of int
        Indices into ``points``, in the order they were picked.
    """
    points = np.asarray(points, dtype=np.float64)
    if count > len(points):
        raise ValueError(f"cannot pick {count} starts from {len(points)} frames: run the hot simulations longer")
    chosen = [int(np.random.default_rng(seed).integers(len(points)))]
    nearest = np.linalg.norm(points - points[chosen[0]], axis=1)
    while len(chosen) < count:
        pick = int(np.argmax(nearest))
        chosen.append(pick)
        nearest = np.minimum(nearest, np.linalg.norm(points - points[pick], axis=1))
    return np.array(chosen)


def hot_runs(
    system: openmm.System,
    state: openmm.State,
    settings: Mapping,
    preparation: Mapping,
    platform: Mapping,
    seed: int,
    threads: int | None = None,
) -> list[np.ndarray]:
    """Short high-temperature runs from the minimized structure; all-atom frames (nm) of each run."""
    steps_per_ps = 1000.0 / preparation["timestep_fs"]
    save_every = max(1, round(settings["save_interval_ps"] * steps_per_ps))
    n_frames = max(1, round(settings["length_ps"] * steps_per_ps / save_every))
    hot = {**preparation, "temperature_k": settings["temperature_k"]}
    runs = []
    for run in range(settings["runs"]):
        run_seed = derive_seed(seed, "hot", run)
        integrator = make_integrator(hot, run_seed)
        context, platform_name = create_context(system, integrator, platform, threads)
        context.setState(state)
        context.setVelocitiesToTemperature(settings["temperature_k"] * unit.kelvin, run_seed)
        frames = []
        for frame in range(n_frames):
            integrator.step(save_every)
            frames.append(context.getState(getPositions=True).getPositions(asNumpy=True).value_in_unit(unit.nanometer))
            if (frame + 1) % max(1, n_frames // 4) == 0:
                log.info(
                    "hot run %d/%d at %.0f K: frame %d/%d on %s",
                    run + 1,
                    settings["runs"],
                    settings["temperature_k"],
                    frame + 1,
                    n_frames,
                    platform_name,
                )
        runs.append(np.array(frames, dtype=np.float32))
        del context
    return runs


def generate_starts(
    topology: app.Topology,
    system: openmm.System,
    state: openmm.State,
    settings: Mapping,
    preparation: Mapping,
    platform: Mapping,
    count: int,
    seed: int,
    outdir: str | Path,
    threads: int | None = None,
) -> pd.DataFrame:
    """Generate ``count`` starting structures far apart in the TIC 0/1 plane of hot runs.

    Writes ``<outdir>/<start>.pdb`` for each start and returns the index table
    (start, run, frame, time_ps, tic0, tic1).
    """
    runs = hot_runs(system, state, settings, preparation, platform, seed, threads)
    ca = ca_atom_indices(topology)
    positions = state.getPositions(asNumpy=True).value_in_unit(unit.nanometer)
    # The schema's default features (all pairs for small proteins, native contacts plus random pairs above
    # tica.features.all_pairs_up_to), the minimized structure as the native one.
    features = choose_features(len(ca), reference=positions[ca], seed=derive_seed(seed, "tica_features"))
    ca_runs = [run[:, ca] for run in runs]
    model = fit_tica(ca_runs, lag=settings["tica_lag_frames"], dim=2, featurize=features.compute, what="starts TICA")
    tics = np.concatenate([model.transform(features.compute(run)) for run in ca_runs])
    picked = farthest_point_selection(tics[:, :2], count, derive_seed(seed, "starts"))
    run_of = np.concatenate([np.full(len(r), i) for i, r in enumerate(runs)])
    frame_of = np.concatenate([np.arange(len(r)) for r in runs])
    everything = np.concatenate(runs)
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    rows = []
    for number, index in enumerate(picked):
        name = start_name(number)
        with open(outdir / f"{name}.pdb", "w") as handle:
            app.PDBFile.writeFile(topology, everything[index] * unit.nanometer, handle, keepIds=True)
        rows.append(
            {
                "start": name,
                "run": int(run_of[index]),
                "frame": int(frame_of[index]),
                "time_ps": float((frame_of[index] + 1) * settings["save_interval_ps"]),
                "tic0": float(tics[index, 0]),
                "tic1": float(tics[index, 1]) if tics.shape[1] > 1 else np.nan,
            }
        )
    log.info("picked %d starts from %d hot frames", count, len(everything))
    return pd.DataFrame(rows)


def start_name(number: int) -> str:
    """The id of start ``number`` (``s0000``, ``s0001``, ...)."""
    return f"s{number:04d}"


def collect_starts(files: list[str | Path], reference: app.Topology, outdir: str | Path) -> pd.DataFrame:
    """Copy user-provided start structures, checking each holds the prepared protein's atoms."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    expected = [(a.residue.name, a.name) for a in reference.atoms()]
    rows = []
    for path in sorted(map(Path, files)):
        atoms = [(a.residue.name, a.name) for a in app.PDBFile(str(path)).topology.atoms()]
        if atoms != expected:
            raise StructureError(
                f"start structure {path} does not hold the prepared protein's atoms in the same order "
                f"({len(atoms)} atoms, {len(expected)} expected). Write it from results/<protein>/prepare/prepared.pdb "
                "(same residues, hydrogens and atom order), or use starts source `generate`."
            )
        shutil.copyfile(path, outdir / f"{path.stem}.pdb")
        rows.append({"start": path.stem, "run": -1, "frame": -1, "time_ps": np.nan, "tic0": np.nan, "tic1": np.nan})
    return pd.DataFrame(rows)
