"""Snakemake entry point: export a WE run's frames (with weights and TICs) and its compute per iteration;
several replicas of the engine are pooled into one export (westbench.we.replicas)."""

import json
from pathlib import Path

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.coverage_grid import CoverageGrid
from westbench.frames import read_frames
from westbench.tica import TicaModel
from westbench.we.replicas import export_replicas
from westbench.workflow import run_script


def main(snakemake):
    protein, engine = snakemake.wildcards.protein, snakemake.wildcards.engine
    seeds = [json.loads(Path(path).read_text())["seed"] for path in snakemake.input.summaries]
    grid = CoverageGrid(read_frames(snakemake.input.groundtruth)["tics"][:, :2], snakemake.params.coverage_bins)
    export_replicas(
        snakemake.params.run_dirs,
        snakemake.output.frames,
        snakemake.output.cost,
        save_interval_ps=snakemake.params.save_every * snakemake.params.timestep_fs / 1000.0,
        tica=TicaModel.load(snakemake.input.tica, protein=protein),
        coverage_grid=grid,
        attrs={
            "protein": protein,
            "source": engine,
            "seed": seeds[0],
            **({"replica_seeds": seeds} if len(seeds) > 1 else {}),
        },
        on_nonfinite=snakemake.params.on_nonfinite,
    )


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
