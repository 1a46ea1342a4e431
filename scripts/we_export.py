"""Snakemake entry point: export a WE run's frames (with weights and TICs) and its compute per iteration."""

import _library  # noqa: F401  (puts src/ on sys.path)

import json
from pathlib import Path

from westbench.frames import read_frames
from westbench.coverage import CoverageGrid
from westbench.tica import TicaModel
from westbench.we.export import export_run
from westbench.workflow import run_script


def main(snakemake):
    protein, engine = snakemake.wildcards.protein, snakemake.wildcards.engine
    run = json.loads(Path(snakemake.input.summary).read_text())
    grid = CoverageGrid(read_frames(snakemake.input.groundtruth)["tics"][:, :2], snakemake.params.coverage_bins)
    export_run(
        snakemake.params.run_dir, snakemake.output.frames, snakemake.output.cost,
        save_interval_ps=snakemake.params.save_every * snakemake.params.timestep_fs / 1000.0,
        tica=TicaModel.load(snakemake.input.tica, protein=protein),
        coverage_grid=grid,
        attrs={"protein": protein, "source": engine, "seed": run["seed"]},
        on_nonfinite=snakemake.params.on_nonfinite,
    )


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
