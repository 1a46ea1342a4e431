"""Snakemake entry point: an external engine's samples in the frames contract, with their cost table."""

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.coverage_grid import CoverageGrid
from westbench.external import import_samples
from westbench.frames import read_frames
from westbench.tica import TicaModel
from westbench.workflow import run_script


def main(snakemake):
    protein = snakemake.wildcards.protein
    grid = CoverageGrid(read_frames(snakemake.input.groundtruth)["tics"][:, :2], snakemake.params.coverage_bins)
    import_samples(
        snakemake.params.spec,
        snakemake.input.prepared,
        snakemake.output.frames,
        snakemake.output.cost,
        engine=snakemake.wildcards.engine,
        protein=protein,
        tica=TicaModel.load(snakemake.input.tica, protein=protein),
        coverage_grid=grid,
        on_nonfinite=snakemake.params.on_nonfinite,
    )


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
