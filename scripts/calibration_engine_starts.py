"""Snakemake entry point: a calibration engine's WE starts, at its own equilibrium."""

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.calibration.basis import write_engine_starts
from westbench.workflow import run_script


def main(snakemake):
    write_engine_starts(
        snakemake.input.states,
        snakemake.input.groundtruth,
        snakemake.input.reweighting,
        snakemake.params.engine,
        snakemake.params.seed,
        snakemake.output.starts,
        sample_path=snakemake.input.get("sample"),
    )


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
