"""The CG training step: one preset's model from the ground truth of one protein or several.

:func:`train_preset` loads each protein's ground-truth frames with forces, trains with the preset's
settings (:func:`westbench.cg.train.preset_training`), and writes the model, its JSON record
(preset, proteins, seed, data hash, priors, versions), the loss history and the training curve
with the force noise floor: known where the caller knows it (the calibration study's reference forces are exact,
so its floor is 0), else estimated from the data (an upper bound).
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

import numpy as np
import torch

from westbench.cg.data import load_protein_data
from westbench.cg.force_matching_floor import force_noise_floor
from westbench.cg.model import save_model
from westbench.cg.train import plot_training_curve, preset_training, train_model
from westbench.presentation.training import failure_to_learn


def train_preset(
    proteins: Mapping[str, Mapping],
    cg: Mapping,
    preset: str,
    *,
    seed: int,
    threads: int,
    model_path,
    history_path,
    figure_path,
    known_noise_floor: float | None = None,
) -> dict:
    """Train the model of ``preset`` and write its files; return the training summary.

    Parameters
    ----------
    proteins : mapping
        ``{protein: {"frames": [frames.h5 of every run], "topology": prepared PDB}}``.
    cg : mapping
        The ``cg`` keys training reads: ``model``, ``prior``, ``langevin``, ``device``, ``training``
        and ``presets`` (at least ``preset``).
    preset : str
        The ``cg.presets`` entry whose overrides apply.
    seed : int
        Seed of subsampling, splitting, initialization and batching.
    threads : int
        torch CPU threads (the job's threads: :mod:`westbench.runtime.resources`).
    model_path, history_path, figure_path : path
        ``model.pt`` (its record beside it, ``model.json``), the loss history CSV and the training-curve PNG.
    known_noise_floor : float, optional
        The force-matching noise floor when it is known rather than estimated (the calibration study:
        :data:`westbench.calibration.study.REFERENCE_FORCE_NOISE_FLOOR`); None estimates it from the data
        (:func:`westbench.cg.force_matching_floor.force_noise_floor`, an upper bound).
    """
    torch.set_num_threads(int(threads))
    datasets = [load_protein_data(protein, files["frames"], files["topology"]) for protein, files in proteins.items()]
    model, history, summary = train_model(
        datasets,
        network=cg["model"],
        prior=cg["prior"],
        training=preset_training(cg, preset),
        seed=seed,
        temperature_k=cg["langevin"]["temperature_k"],
        dtype=cg["model"]["dtype"],
        device=cg["device"],
    )
    if known_noise_floor is None:
        floor = float(np.mean([force_noise_floor(d.positions, d.forces, seed=seed) for d in datasets]))
        summary["force_noise_floor_source"] = "estimated (nearest-neighbour frames: an upper bound)"
    else:
        floor = float(known_noise_floor)
        summary["force_noise_floor_source"] = "known"
    summary["force_noise_floor"] = floor
    # The loss of a model that predicts no force: the scale a loss and its floor are read against.
    summary["force_mean_square"] = float(
        sum(np.sum(np.square(d.forces, dtype=np.float64)) for d in datasets) / sum(np.size(d.forces) for d in datasets)
    )
    save_model(
        model,
        model_path,
        extra={
            "preset": preset,
            "proteins": list(proteins),
            "seed": seed,
            "data_sha256": summary["data_sha256"],
            "training_summary": summary,
            "torch": torch.__version__,
            "config": {key: cg[key] for key in ("model", "prior", "langevin")},
            "priors": {p: model.priors[p].describe() for p in model.priors},
        },
    )
    Path(history_path).parent.mkdir(parents=True, exist_ok=True)
    history.to_csv(history_path, index=False)
    frames = sum(f["used"] for f in summary["frames"].values())
    plot_training_curve(
        history,
        figure_path,
        noise_floor=floor,
        noise_floor_source=summary["force_noise_floor_source"],
        title=f"{', '.join(proteins)}: {preset} ({frames} frames, "
        f"{summary['training']['lr_schedule']} LR)"
        + ("" if summary["learned"] else f": {failure_to_learn(summary, 'title')}"),  # the caveat's owner
    )
    return summary
