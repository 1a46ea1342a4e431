"""Snakemake entry point: the calibration study's WE basis states, drawn from its ground truth."""

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.atomic import savez
from westbench.calibration.basis import draw_basis_states
from westbench.workflow import run_script


def main(snakemake):
    drawn = draw_basis_states(list(snakemake.input.frames), snakemake.params.states, snakemake.params.seed)
    savez(snakemake.output.states, **drawn, seed=snakemake.params.seed)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
