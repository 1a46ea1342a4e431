"""Snakemake entry point: train a CG model by force matching (one protein, or all) with one preset."""

import _library  # noqa: F401  (puts src/ on sys.path)

import numpy as np
import torch

from westbench.cg.data import load_protein_data
from westbench.cg.model import save_model
from westbench.cg.noise_floor import force_noise_floor
from westbench.cg.train import plot_training_curve, preset_training, train_model
from westbench.workflow import run_script


def main(snakemake):
    torch.set_num_threads(snakemake.threads)
    cgml, preset = snakemake.params.cgml, snakemake.wildcards.preset
    datasets = [load_protein_data(protein, files["frames"], files["topology"])
                for protein, files in snakemake.params.proteins.items()]
    model, history, summary = train_model(
        datasets, network=cgml["model"], prior=cgml["prior"], training=preset_training(cgml, preset),
        seed=snakemake.params.seed, temperature_k=cgml["langevin"]["temperature_k"], dtype=cgml["model"]["dtype"],
        device=cgml["device"])
    save_model(model, snakemake.output.model, extra={
        "preset": preset, "proteins": list(snakemake.params.proteins), "seed": snakemake.params.seed,
        "data_sha256": summary["data_sha256"], "training_summary": summary, "torch": torch.__version__,
        "config": {key: cgml[key] for key in ("model", "prior", "langevin")},
        "priors": {p: model.priors[p].describe() for p in model.priors}})
    history.to_csv(snakemake.output.history, index=False)
    name = ", ".join(snakemake.params.proteins)
    floor = float(np.mean([force_noise_floor(d.positions, d.forces, seed=snakemake.params.seed) for d in datasets]))
    plot_training_curve(history, snakemake.output.figure,
                        title=f"{name}: {preset} ({sum(f['used'] for f in summary['frames'].values())} frames, "
                              f"{summary['training']['lr_schedule']} LR)", noise_floor=floor)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
