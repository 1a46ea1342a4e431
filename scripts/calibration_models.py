"""Snakemake entry point: the calibration study's native structure, reference potential and perturbed copies."""

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.cg.reference import build_references
from westbench.workflow import run_script


def main(snakemake):
    params = snakemake.params
    build_references(
        params.native,
        params.reference,
        snakemake.output.native,
        dict(zip(snakemake.output.models, params.perturbations, strict=True)),
    )


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
