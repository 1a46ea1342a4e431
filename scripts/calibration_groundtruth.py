"""Snakemake entry point: the calibration study's ground truth, unbiased runs of the reference potential."""

import _library  # noqa: F401  (puts src/ on sys.path)
import torch

from westbench.calibration.groundtruth import run_reference_groundtruth
from westbench.cg.native import native_ca
from westbench.workflow import run_script, write_json


def main(snakemake):
    torch.set_num_threads(int(snakemake.threads))
    native = native_ca(snakemake.input.native)
    summary = run_reference_groundtruth(
        snakemake.input.model,
        native,
        snakemake.output.frames,
        snakemake.params.langevin,
        snakemake.params.settings,
        seed=snakemake.params.seed,
        explosion=snakemake.params.explosion,
        attrs={"protein": snakemake.wildcards.protein},
    )
    write_json(summary, snakemake.output.summary)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
