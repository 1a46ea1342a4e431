"""Snakemake entry point: train a CG model by force matching (one protein, or all) with one preset."""

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.cg.training_step import train_preset
from westbench.workflow import run_script


def main(snakemake):
    train_preset(
        snakemake.params.proteins,
        snakemake.params.cg,
        snakemake.wildcards.preset,
        seed=snakemake.params.seed,
        threads=snakemake.threads,
        model_path=snakemake.output.model,
        history_path=snakemake.output.history,
        figure_path=snakemake.output.figure,
        known_noise_floor=snakemake.params.known_noise_floor,
    )


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
