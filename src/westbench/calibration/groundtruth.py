"""Ground truth made by a reference CG potential itself: long unbiased Langevin runs from many starts.

For the calibration study (:mod:`westbench.cg.reference`): the runs use the CG engine that WE uses
(:class:`westbench.cg.engine.CGEngine`: BAOAB, seeded per walker, explosion checks), all runs in one
batch. Half the runs start from the native structure, half from a short run at ``hot_scale`` times the
temperature (unfolded starts); every run then equilibrates ``equilibration_ps`` (discarded) and saves a
frame every ``save_interval_ps`` for ``length_ps``. Each run is one frames file (the frames contract)
with the C-alpha positions, the reference's forces on them (for force matching) and its energy.

Examples
--------
>>> import tempfile, os
>>> from westbench.cg.native import native_ca
>>> from westbench.cg.reference import GoModel, save_reference
>>> folder = tempfile.mkdtemp(); model = os.path.join(folder, "model.pt")
>>> save_reference(GoModel(native_ca("1UAO").tolist(), epsilon_kj_mol=3.0), model)
>>> paths = [os.path.join(folder, f"r{i}.h5") for i in range(2)]
>>> summary = run_reference_groundtruth(model, native_ca("1UAO"), paths, {"timestep_fs": 10.0, "bead_mass_amu": 110.0,
...     "temperature_k": 300.0}, {"equilibration_ps": 0.2, "length_ps": 1.0, "save_interval_ps": 0.1}, seed=1)
>>> summary["runs"], summary["frames_per_run"]
(2, 10)
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from westbench.config import section_defaults
from westbench.errors import WestbenchError
from westbench.seeds import derive_seed

log = logging.getLogger(__name__)


def _steps(ps: float, timestep_fs: float) -> int:
    return int(round(1000.0 * float(ps) / float(timestep_fs)))


def _engine(model_path, native, langevin: Mapping, temperature_k: float, explosion):
    """The reference's CG engine (CPU) at ``temperature_k``."""
    from westbench.cg.engine import CGEngine

    return CGEngine(
        model_path,
        "reference",
        basis_positions=native,
        langevin={**langevin, "temperature_k": temperature_k},
        explosion=explosion,
        device="cpu",
        bead_mass_amu=langevin.get("bead_mass_amu"),
    )


def _checked(eng, states, every: int, seeds, save_every: int):
    """One segment of every run; a run that ends (exploded) is an error: the ground truth has no gaps."""
    results = eng.propagate(states, n_steps=every, save_every=min(every, save_every), seeds=seeds)
    ended = [r for r in results if r.status != "ok"]
    if ended:
        raise WestbenchError(
            f"reference ground truth: {len(ended)} run(s) ended ({ended[0].status}: "
            f"{ended[0].message}); lower langevin.timestep_fs"
        )
    return results


def _advance(eng, states, n_steps: int, phase: str, seed: int, save_every: int, every: int | None = None):
    """Propagate every run ``n_steps`` in segments of ``every`` steps: the frames (runs, frames, n, 3), the states."""
    every = every or n_steps
    frames, done = [], 0
    while done < n_steps:
        seeds = [derive_seed(seed, "reference_groundtruth", phase, done, run) for run in range(len(states))]
        results = _checked(eng, states, every, seeds, save_every)
        states = [r.final for r in results]
        frames.append(np.stack([r.frames for r in results]))
        done += every
    return np.concatenate(frames, axis=1), states


def _production(cold, states, n_frames: int, save_every: int, seed: int, started: float) -> np.ndarray:
    """The saved frames (runs, frames, n, 3) of every run at the study temperature, with ten progress lines."""
    n_runs, total = len(states), n_frames * save_every
    chunk = save_every * max(1, n_frames // 10)  # ten progress lines
    frames, done = [], 0
    while done < total:
        steps = min(chunk, total - done)
        piece, states = _advance(cold, states, steps, f"production_{done}", seed, save_every)
        frames.append(piece)
        done += steps
        rate = done * n_runs / (time.perf_counter() - started)
        log.info(
            "reference ground truth: %d/%d steps of %d runs, %.0f walker-steps/s, ETA %.0f s",
            done,
            total,
            n_runs,
            rate,
            (total - done) * n_runs / max(rate, 1e-9),
        )
    return np.concatenate(frames, axis=1)


def _simulate(model_path, native, n_runs: int, langevin: Mapping, settings: Mapping, seed: int, explosion) -> dict:
    """The runs of :func:`run_reference_groundtruth`: frames (runs, frames, n, 3), the engine at the study
    temperature, the hot-started runs, the settings used and the frame count."""

    from westbench.engines.base import WalkerState

    settings = {
        key: value
        for key, value in {**section_defaults("calibration.groundtruth"), **settings}.items()
        if key not in ("runs", "perturbed_runs", "tica_lag_frames")
    }
    if n_runs < 2:
        raise WestbenchError(f"reference ground truth: {n_runs} run(s); the noise floor needs at least 2")
    timestep = float(langevin["timestep_fs"])
    save_every = _steps(settings["save_interval_ps"], timestep)
    if save_every < 1:
        raise WestbenchError(
            f"save_interval_ps {settings['save_interval_ps']} is shorter than the timestep {timestep} fs"
        )
    n_frames = _steps(settings["length_ps"], timestep) // save_every
    cold = _engine(model_path, native, langevin, float(langevin["temperature_k"]), explosion)
    started = time.perf_counter()
    states = [WalkerState(np.asarray(native, dtype=np.float64).copy()) for _ in range(n_runs)]
    hot_runs = list(range(1, n_runs, 2))  # every other run starts unfolded
    if hot_runs and settings["hot_ps"] > 0:
        hot_k = float(langevin["temperature_k"]) * float(settings["hot_scale"])
        hot = _engine(model_path, native, langevin, hot_k, explosion)
        steps = max(save_every, _steps(settings["hot_ps"], timestep) // save_every * save_every)
        _, heated = _advance(hot, states, steps, "hot", seed, save_every)
        states = [heated[i] if i in hot_runs else states[i] for i in range(n_runs)]
    equilibration = _steps(settings["equilibration_ps"], timestep) // save_every * save_every
    if equilibration:
        _, states = _advance(cold, states, equilibration, "equilibration", seed, save_every)
    return {
        "frames": _production(cold, states, n_frames, save_every, seed, started),  # (runs, frames, n, 3)
        "engine": cold,
        "hot_runs": hot_runs,
        "settings": settings,
        "n_frames": n_frames,
        "started": started,
    }


def run_reference_groundtruth(
    model_path,
    native: np.ndarray,
    frames_paths: Sequence[str | Path],
    langevin: Mapping,
    settings: Mapping,
    seed: int,
    explosion: Mapping | None = None,
    attrs: Mapping | None = None,
) -> dict:
    """Run ``len(frames_paths)`` unbiased runs of the reference model and write one frames file each.

    Parameters
    ----------
    model_path : path
        The reference model (:func:`westbench.cg.reference.save_reference`).
    native : array (n, 3)
        The native C-alpha positions (nm): the folded starts.
    frames_paths : sequence of path
        One frames file per run.
    langevin : mapping
        The CG engine's dynamics (``temperature_k``, ``timestep_fs``, ``friction_per_ps``, ``bead_mass_amu``).
    settings : mapping
        ``equilibration_ps``, ``length_ps``, ``save_interval_ps``, ``hot_scale``, ``hot_ps`` (the schema's
        ``calibration.groundtruth`` defaults for keys left out).
    seed : int
        Every walker's noise derives from it (the run index and phase).
    """
    import torch

    from westbench.io.frames import write_frames

    n_runs = len(frames_paths)
    sample = _simulate(model_path, native, n_runs, langevin, settings, seed, explosion)
    frames, cold, hot_runs, n_frames = sample["frames"], sample["engine"], sample["hot_runs"], sample["n_frames"]
    model = cold.model
    interval = float(sample["settings"]["save_interval_ps"])
    for run, path in enumerate(frames_paths):
        x = torch.as_tensor(frames[run], dtype=cold.dtype)
        forces = cold.forces(x).detach().numpy()
        with torch.no_grad():
            energy = model(x).numpy()
        write_frames(
            path,
            ca=frames[run],
            time_ps=interval * np.arange(1, n_frames + 1),
            forces=forces,
            energy=energy,
            attrs={
                "source": "reference",
                "run": run,
                "start": "hot" if run in hot_runs else "native",
                "seed": seed,
                "temperature_k": float(langevin["temperature_k"]),
                **dict(attrs or {}),
            },
        )
    seconds = time.perf_counter() - sample["started"]
    log.info("reference ground truth: %d runs x %d frames in %.1f s", n_runs, n_frames, seconds)
    return {
        "runs": n_runs,
        "frames_per_run": n_frames,
        "save_interval_ps": interval,
        "seed": seed,
        "hot_starts": len(hot_runs),
        "seconds": round(seconds, 3),
        "settings": sample["settings"],
    }


def run_equilibrium_sample(
    model_path,
    native: np.ndarray,
    path,
    runs: int,
    langevin: Mapping,
    settings: Mapping,
    seed: int,
    explosion: Mapping | None = None,
    attrs: Mapping | None = None,
) -> dict:
    """``runs`` unbiased runs of any study potential, made as :func:`run_reference_groundtruth` makes the ground
    truth (native and hot starts, equilibrated), written to one frames file (``traj``: the run) with each frame's
    ``energy``: a perturbation's own sample of its equilibrium, whose score against the ground truth is its known
    answer (:mod:`westbench.calibration.reweighting`).

    Examples
    --------
    >>> import tempfile, os
    >>> from westbench.cg.native import native_ca
    >>> from westbench.cg.reference import GoModel, save_reference
    >>> from westbench.io.frames import read_frames
    >>> folder = tempfile.mkdtemp(); model = os.path.join(folder, "model.pt")
    >>> save_reference(GoModel(native_ca("1UAO").tolist(), epsilon_kj_mol=2.5), model)
    >>> summary = run_equilibrium_sample(model, native_ca("1UAO"), os.path.join(folder, "s.h5"), 3,
    ...     {"timestep_fs": 10.0, "bead_mass_amu": 110.0, "temperature_k": 330.0},
    ...     {"equilibration_ps": 0.2, "length_ps": 1.0, "save_interval_ps": 0.1}, seed=2)
    >>> frames = read_frames(os.path.join(folder, "s.h5"))
    >>> frames["traj"].tolist()[::10], frames["energy"].shape, float(frames.attrs["temperature_k"])
    ([0, 1, 2], (30,), 330.0)
    """
    import torch

    from westbench.io.frames import write_frames

    sample = _simulate(model_path, native, int(runs), langevin, settings, seed, explosion)
    frames, cold, n_frames = sample["frames"], sample["engine"], sample["n_frames"]
    positions = frames.reshape(-1, *frames.shape[2:])
    with torch.no_grad():
        energy = cold.model(torch.as_tensor(positions, dtype=cold.dtype)).double().numpy()
    interval = float(sample["settings"]["save_interval_ps"])
    write_frames(
        path,
        ca=positions,
        time_ps=np.tile(interval * np.arange(1, n_frames + 1), int(runs)),
        traj=np.repeat(np.arange(int(runs)), n_frames),
        energy=energy,
        start=np.repeat([1 if run in sample["hot_runs"] else 0 for run in range(int(runs))], n_frames),
        attrs={
            "source": "equilibrium sample",
            "seed": seed,
            "temperature_k": float(langevin["temperature_k"]),
            **dict(attrs or {}),
        },
    )
    seconds = time.perf_counter() - sample["started"]
    log.info("equilibrium sample: %d runs x %d frames in %.1f s", runs, n_frames, seconds)
    return {"runs": int(runs), "frames_per_run": n_frames, "seed": seed, "seconds": round(seconds, 3)}
