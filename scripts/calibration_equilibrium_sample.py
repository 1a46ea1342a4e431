"""Snakemake entry point: a calibration engine's own unbiased sample of its equilibrium (its known answer's)."""

import _library  # noqa: F401  (puts src/ on sys.path)
import torch

from westbench.calibration.groundtruth import run_equilibrium_sample
from westbench.cg.native import native_ca
from westbench.workflow import run_script


def main(snakemake):
    torch.set_num_threads(int(snakemake.threads))
    params = snakemake.params
    run_equilibrium_sample(
        snakemake.input.model,
        native_ca(snakemake.input.native),
        snakemake.output[0],
        params.runs,
        params.langevin,
        params.settings,
        seed=params.seed,
        explosion=params.explosion,
        attrs={"protein": snakemake.wildcards.protein, "engine": params.engine},
    )


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
