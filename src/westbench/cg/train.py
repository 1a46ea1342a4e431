"""Force matching: fit the prior, then train the network so that -dE/dx matches the ground-truth forces.

Per protein: a seeded ``frame_fraction`` of the frames, split ``1 - validation_fraction`` /
``validation_fraction`` (seeded); the prior is fitted on the training frames; Adam at
``learning_rate`` on the mean squared force error ((kJ/mol/nm)^2); the learning rate stays
constant (``lr_schedule: constant``) or is reduced on a validation plateau (``plateau``); training
stops after ``max_epochs`` or when the validation loss has not improved for
``early_stopping_patience`` epochs, and the best epoch's weights are kept. Several proteins share
one network; each batch holds frames of one protein.

Examples
--------
>>> import numpy as np
>>> from westbench.cg.data import ProteinData
>>> rng = np.random.default_rng(0)
>>> ca = np.cumsum(rng.normal(0, 0.2, (60, 5, 3)), axis=1).astype(np.float32)
>>> data = ProteinData("p", "GYDPE", ca, rng.normal(0, 10, (60, 5, 3)).astype(np.float32))
>>> model, history, summary = train_model([data], network={"embedding": 8, "interaction_layers": 1, "rbf": 4},
...     prior={"terms": ["bonds"]}, training={"max_epochs": 2, "batch_size": 16}, seed=1)
>>> list(history.columns), summary["frames"]["p"]
(['epoch', 'train_loss', 'validation_loss', 'learning_rate', 'seconds'], {'used': 60, 'train': 54, 'validation': 6})
"""

from __future__ import annotations

import copy
import logging
import math
import time
from typing import Mapping, Sequence

import numpy as np
import pandas as pd
import torch

from westbench.cg.data import ProteinData, data_hash, load_protein_data, split, subsample
from westbench.cg.model import CGModel, energy_and_forces, save_model
from westbench.cg.prior import fit_prior, prior_options
from westbench.cg.settings import TrainingSettings
from westbench.cg.torch_device import torch_device
from westbench.config import default, section_defaults
from westbench.errors import ConfigError
from westbench.seeds import derive_seed

log = logging.getLogger(__name__)

_CGML = section_defaults("cg")


def preset_training(cg: Mapping, preset: str) -> dict:
    """The ``cg.training`` section with a preset's overrides (``cg.presets.<preset>``) applied.

    Examples
    --------
    >>> cg = {"training": {"frame_fraction": 1.0, "lr_schedule": "plateau"},
    ...         "presets": {"undertrained": {"frame_fraction": 0.1, "lr_schedule": "constant"}}}
    >>> preset_training(cg, "undertrained")
    {'frame_fraction': 0.1, 'lr_schedule': 'constant'}
    """
    presets = cg.get("presets", {})
    if preset not in presets:
        raise ConfigError(f"unknown CG preset {preset!r}; cg.presets defines {sorted(presets)}")
    return {**cg.get("training", {}), **presets[preset]}


def fit_prior_model(proteins: Mapping[str, Mapping], cg: Mapping, *, seed: int, path) -> None:
    """westbench's prior alone (``cg.prior`` terms, Boltzmann-inverted from the ground truth) as a
    prior-only model file, for a user's model with ``prior: fitted`` (:mod:`westbench.cg.user`); no network,
    no training."""
    datasets = [load_protein_data(protein, files["frames"], files["topology"]) for protein, files in proteins.items()]
    model, _, summary = train_model(
        datasets,
        network=None,
        prior=cg["prior"],
        training=TrainingSettings(max_epochs=0, frame_fraction=1.0),
        seed=seed,
        temperature_k=cg["langevin"]["temperature_k"],
        device="cpu",
    )
    save_model(
        model,
        path,
        extra={"prior_only": True, "proteins": list(proteins), "seed": seed, "data_sha256": summary["data_sha256"]},
    )


def force_loss(model, x: torch.Tensor, forces: torch.Tensor, create_graph: bool) -> torch.Tensor:
    """Mean squared force error per component, (kJ/mol/nm)^2."""
    _, predicted = energy_and_forces(model, x, create_graph=create_graph)
    return ((predicted - forces) ** 2).mean()


def _batches(train: Mapping[str, ProteinData], batch_size: int, rng: np.random.Generator):
    batches = []
    for protein, data in train.items():
        order = rng.permutation(len(data))
        batches += [(protein, order[i : i + batch_size]) for i in range(0, len(data), batch_size)]
    return [batches[i] for i in rng.permutation(len(batches))]


def _tensors(data: ProteinData, device, dtype):
    return (
        torch.as_tensor(data.positions, dtype=dtype, device=device),
        torch.as_tensor(data.forces, dtype=dtype, device=device),
    )


def evaluate(model: CGModel, tensors: Mapping, batch_size: int) -> float:
    """Mean squared force error over every frame of ``tensors`` (protein -> (positions, forces))."""
    total, count = 0.0, 0
    for protein, (x, f) in tensors.items():
        module = model.for_protein(protein)
        for i in range(0, len(x), batch_size):
            loss = force_loss(module, x[i : i + batch_size], f[i : i + batch_size], create_graph=False)
            total += float(loss) * f[i : i + batch_size].numel()
            count += f[i : i + batch_size].numel()
    return total / max(count, 1)


def _split_frames(datasets: Sequence[ProteinData], settings: TrainingSettings, seed: int):
    """Each protein's seeded subset split into training and validation frames, and the counts per protein."""
    train, validation, frames = {}, {}, {}
    for data in datasets:
        used = subsample(data, settings.frame_fraction, derive_seed(seed, "cg", "subset", data.protein))
        train[data.protein], validation[data.protein] = split(
            used, settings.validation_fraction, derive_seed(seed, "cg", "split", data.protein)
        )
        frames[data.protein] = {
            "used": len(used),
            "train": len(train[data.protein]),
            "validation": len(validation[data.protein]),
        }
    return train, validation, frames


def _fit_priors(model: CGModel, train: Mapping[str, ProteinData], prior: Mapping, temperature_k: float) -> None:
    """Fit each protein's prior on its training frames and set it on ``model``."""
    prior = {**section_defaults("cg.prior"), **prior}
    options = prior_options(prior, temperature_k)
    for protein, data in train.items():
        model.set_prior(
            protein,
            fit_prior(
                data.positions,
                histogram_bins=int(prior["histogram_bins"]),
                min_samples=int(prior["min_samples"]),
                **options,
            ),
        )


def _optimizer(parameters: list, settings: TrainingSettings):
    """Adam on ``parameters`` and its plateau scheduler (None for a constant rate); both None without parameters."""
    optimizer = torch.optim.Adam(parameters, lr=settings.learning_rate) if parameters else None
    scheduler = None
    if optimizer is not None and settings.lr_schedule == "plateau":
        scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(
            optimizer,
            factor=settings.plateau_factor,
            patience=settings.plateau_patience,
            min_lr=settings.min_learning_rate,
        )
    return optimizer, scheduler


def _row(epoch: int, train_loss: float, validation_loss: float, learning_rate: float, started: float) -> dict:
    """One epoch's row of the training history."""
    return {
        "epoch": epoch,
        "train_loss": train_loss,
        "validation_loss": validation_loss,
        "learning_rate": learning_rate,
        "seconds": time.perf_counter() - started,
    }


def _train_epoch(model: CGModel, batches, tensors: Mapping, optimizer, device) -> float:
    """One pass of Adam steps over ``batches`` (protein, frame indices); the mean training loss per frame."""
    model.train()
    total, count = 0.0, 0
    for protein, index in batches:
        x, f = tensors[protein]
        index = torch.as_tensor(index, device=device)
        optimizer.zero_grad()
        loss = force_loss(model.for_protein(protein), x[index], f[index], create_graph=True)
        loss.backward()
        optimizer.step()
        total += float(loss.detach()) * len(index)
        count += len(index)
    model.eval()
    return total / max(count, 1)


def _epochs(
    model: CGModel, optimizer, scheduler, settings: TrainingSettings, train_epoch, validate, rows: list, started
):
    """Train epoch by epoch (``train_epoch()`` then ``validate()``), appending to ``rows``, until ``max_epochs``,
    a non-finite validation loss or early stopping; the best epoch's state, loss, number and why it stopped."""
    best, best_epoch, stale, stopped = rows[0]["validation_loss"], 0, 0, "max_epochs"
    best_state = copy.deepcopy(model.state_dict())
    for epoch in range(1, int(settings.max_epochs) + 1):
        if optimizer is None:
            stopped = "no trainable parameters"
            break
        train_loss = train_epoch()
        value = validate()
        if not math.isfinite(value):
            stopped = f"non-finite validation loss at epoch {epoch}"
            log.warning("%s: keeping epoch %d", stopped, best_epoch)
            break
        if scheduler is not None:
            scheduler.step(value)
        rows.append(_row(epoch, train_loss, value, optimizer.param_groups[0]["lr"], started))
        if value < best:
            best, best_epoch, stale = value, epoch, 0
            best_state = copy.deepcopy(model.state_dict())
        else:
            stale += 1
        if epoch % max(1, int(settings.max_epochs) // 10) == 0 or epoch == 1:
            log.info(
                "epoch %d: train %.4g, validation %.4g, lr %.2g",
                epoch,
                rows[-1]["train_loss"],
                value,
                rows[-1]["learning_rate"],
            )
        if stale >= int(settings.early_stopping_patience):
            stopped = f"early stopping: no improvement for {stale} epochs"
            break
    return best_state, best, best_epoch, stopped


def _log_outcome(summary: Mapping, initial: float) -> None:
    """Log the training's result, and a failure to learn as an error that says the fix."""
    best, best_epoch = summary["best_validation_loss"], summary["best_epoch"]
    log.info(
        "trained in %.1f s: best validation loss %.4g at epoch %d (%s)",
        summary["seconds"],
        best,
        best_epoch,
        summary["stopped_because"],
    )
    if not summary["learned"]:
        log.error(
            "failure to learn: the kept model is epoch %d (validation loss %.4g, at the start %.4g: %.3g %% lower, "
            "%.3g %% needed, cg.training.min_relative_drop); it is the network on its prior. Fix: more frames, "
            "more epochs or another learning rate (cg.training, cg.presets)",
            best_epoch,
            best,
            initial,
            100 * summary["relative_drop"],
            100 * summary["min_relative_drop"],
        )


def train_model(
    datasets: Sequence[ProteinData],
    *,
    network: Mapping | None,
    prior: Mapping,
    training: Mapping | TrainingSettings,
    seed: int,
    temperature_k: float = section_defaults("cg.langevin")["temperature_k"],
    dtype: str = section_defaults("cg.model")["dtype"],
    device: str = _CGML["device"],
):
    """Fit priors and train a :class:`CGModel` by force matching.

    ``training``: the :class:`~westbench.cg.settings.TrainingSettings`, or a mapping of ``cg.training`` keys over the
    schema's defaults (:func:`preset_training`); an unknown key or ``lr_schedule`` is refused before any work.

    Returns
    -------
    model : CGModel
        On the CPU, with the weights of the best validation epoch.
    history : pandas.DataFrame
        One row per epoch (epoch 0 = before training): train and validation loss, learning rate, seconds.
    summary : dict
        Frames used, best epoch and loss, why training stopped, device, data hash, seconds.
    """
    settings = TrainingSettings.of(training)
    started = time.perf_counter()
    torch.manual_seed(derive_seed(seed, "cg", "init"))
    train, validation, frames = _split_frames(datasets, settings, seed)
    model = CGModel({d.protein: d.sequence for d in datasets}, network, prior, temperature_k, dtype)
    _fit_priors(model, train, prior, temperature_k)
    run_device = torch_device(device)
    model.to(run_device)
    torch_dtype = next(model.priors.values().__iter__()).bond_k.dtype
    train_t = {p: _tensors(d, run_device, torch_dtype) for p, d in train.items()}
    validation_t = {p: _tensors(d, run_device, torch_dtype) for p, d in validation.items()}
    batch_size = int(settings.batch_size)
    parameters = [p for p in model.parameters() if p.requires_grad]
    optimizer, scheduler = _optimizer(parameters, settings)
    rng = np.random.default_rng(derive_seed(seed, "cg", "batches"))
    first = evaluate(model, train_t, batch_size)
    rows = [_row(0, first, evaluate(model, validation_t, batch_size), settings.learning_rate, started)]
    log.info(
        "force matching on %s: %s, device %s, epoch 0 loss train %.4g validation %.4g",
        ", ".join(train),
        frames,
        run_device,
        first,
        rows[0]["validation_loss"],
    )
    best_state, best, best_epoch, stopped = _epochs(
        model,
        optimizer,
        scheduler,
        settings,
        lambda: _train_epoch(model, _batches(train, batch_size, rng), train_t, optimizer, run_device),
        lambda: evaluate(model, validation_t, batch_size),
        rows,
        started,
    )
    model.load_state_dict(best_state)
    model.to("cpu").eval()
    history = pd.DataFrame(rows, columns=["epoch", "train_loss", "validation_loss", "learning_rate", "seconds"])
    summary = {
        "frames": frames,
        "best_epoch": best_epoch,
        "best_validation_loss": best,
        "initial_validation_loss": rows[0]["validation_loss"],
        "epochs": int(history["epoch"].max()),
        "stopped_because": stopped,
        "device": str(run_device),
        "data_sha256": data_hash(datasets),
        "seconds": round(time.perf_counter() - started, 3),
        "training": settings.as_dict(),
        "parameters": sum(p.numel() for p in parameters),
    }
    summary["relative_drop"] = round(relative_drop(summary), 6)
    summary["min_relative_drop"] = float(settings.min_relative_drop)
    summary["learned"] = learned(summary, summary["min_relative_drop"])
    _log_outcome(summary, rows[0]["validation_loss"])
    return model, history, summary


def relative_drop(summary: Mapping) -> float:
    """The share of the start's validation loss that training removed: 1 - best / initial (0 when it rose)."""
    start, best = float(summary["initial_validation_loss"]), float(summary["best_validation_loss"])
    return max(0.0, 1.0 - best / start) if start > 0 else 0.0


def learned(summary: Mapping, min_relative_drop: float = default("cg.training.min_relative_drop")) -> bool:
    """Whether a training run learned: it kept an epoch after 0 and its validation loss fell by at least
    ``min_relative_drop`` of the start's (``cg.training.min_relative_drop``).

    A run that keeps epoch 0, or one whose loss moved by less (the untrained network on its prior, give or take
    round-off and noise), is reported as a failure to learn (log, the model's record, ``metrics.json`` and the
    report), not scored as a trained model.

    Examples
    --------
    >>> learned({"best_epoch": 0, "best_validation_loss": 5.0, "initial_validation_loss": 5.0})
    False
    >>> learned({"best_epoch": 12, "best_validation_loss": 2.0, "initial_validation_loss": 5.0})
    True
    >>> learned({"best_epoch": 3, "best_validation_loss": 4.99992, "initial_validation_loss": 5.0})  # 0.0016 %
    False
    """
    return bool(int(summary.get("best_epoch", 0)) > 0 and relative_drop(summary) >= float(min_relative_drop))


def plot_training_curve(
    history: pd.DataFrame,
    path,
    title: str = "",
    noise_floor: float | None = None,
    noise_floor_source: str = "estimated from the data",
) -> None:
    """Train and validation loss per epoch (log scale) and the learning rate; ``noise_floor`` drawn as a line
    labelled with ``noise_floor_source`` (the training record's ``force_noise_floor_source``), so a flat curve near
    it reads as converged. A floor of 0 (exact forces) cannot sit on a log axis: the legend states it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from westbench.presentation.figure_layout import fit_titles

    figure, axis = plt.subplots(figsize=(6, 4.8))
    axis.plot(history["epoch"], history["train_loss"], label="train")
    axis.plot(history["epoch"], history["validation_loss"], label="validation")
    best = history.loc[history["validation_loss"].idxmin()]
    axis.scatter(
        [best["epoch"]], [best["validation_loss"]], color="k", zorder=3, label=f"best (epoch {int(best['epoch'])})"
    )
    if noise_floor is not None and np.isfinite(noise_floor):
        if noise_floor > 0:
            axis.axhline(noise_floor, color="tab:red", lw=0.9, ls="--", label=f"noise floor ({noise_floor_source})")
        else:
            axis.plot([], [], color="tab:red", lw=0.9, ls="--", label=f"noise floor 0 ({noise_floor_source})")
    axis.set_yscale("log")
    axis.set_xlabel("epoch")
    axis.set_ylabel("force MSE ((kJ/mol/nm)$^2$)")
    rate = axis.twinx()
    rate.plot(history["epoch"], history["learning_rate"], color="0.6", linestyle=":", label="learning rate")
    rate.set_yscale("log")
    rate.set_ylabel("learning rate", color="0.4")
    lines = axis.get_legend_handles_labels()[0] + rate.get_legend_handles_labels()[0]
    labels = axis.get_legend_handles_labels()[1] + rate.get_legend_handles_labels()[1]
    # Below the axes, in columns: inside them it covered the curves it explains.
    axis.legend(lines, labels, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2, frameon=False)
    axis.set_title(title)
    fit_titles(figure)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
