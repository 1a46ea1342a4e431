"""Snakemake entry point: the calibration study's table, checks and figures."""

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.calibration.table import calibration_table
from westbench.workflow import run_script


def main(snakemake):
    params, inputs = snakemake.params, snakemake.input
    calibration_table(
        params.study,
        params.engines,
        inputs.metrics,
        inputs.groundtruth,
        inputs.reweighting,
        params.reference,
        dict(zip(params.trained_models, inputs.trained, strict=True)),
        params.perturbations,
        inputs.null,
        snakemake.output.table,
        snakemake.output.summary,
        snakemake.output.resolution,
        snakemake.output.convergence,
        weighting=params.weighting,
        discard_iterations=params.discard_iterations,
        dynamics_only=params.dynamics_only,
        segment_ps=params.segment_ps,
        run_paths=inputs.runs,
        engine_frames=dict(zip(params.reference_engines, inputs.engine_frames, strict=True)),
        known_samples=dict(zip(params.sampled, inputs.known, strict=True)),
    )


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
