"""Snakemake entry point: the calibration study's exact predictions (the ground truth reweighted per engine)."""

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.calibration.reweighting import write_reweighting
from westbench.workflow import run_script


def main(snakemake):
    params = snakemake.params
    write_reweighting(
        snakemake.input.groundtruth,
        dict(zip(params.engines, snakemake.input.models, strict=True)),
        params.temperatures,
        params.reference,
        snakemake.output.weights,
        samples=dict(zip(params.sampled, snakemake.input.samples, strict=True)),
        tica_path=snakemake.input.tica,
        known_paths=dict(zip(params.sampled, snakemake.output.known, strict=True)),
    )


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
