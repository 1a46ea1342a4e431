"""Snakemake entry point: one protein's figures across engines (the registry's of scope PROTEIN: TIC 0/1 contours
side by side, coverage vs compute)."""

import _library  # noqa: F401  (puts src/ on sys.path)
import pandas as pd

from westbench.frames import ok_frames, read_frames
from westbench.metrics.figure_list import PROTEIN, figures
from westbench.metrics.figures import ProteinFigureData, write_protein_figures
from westbench.metrics.weighted import normalized
from westbench.workflow import run_script


def main(snakemake):
    groundtruth = read_frames(snakemake.input.groundtruth)
    engines = {}
    for engine, path in zip(snakemake.params.engines, snakemake.input.frames, strict=True):  # identities as data
        frames = ok_frames(read_frames(path))
        engines[engine] = (frames["tics"], normalized(frames["weight"]))
    costs = {
        engine: pd.read_csv(path) for engine, path in zip(snakemake.params.engines, snakemake.input.costs, strict=True)
    }
    data = ProteinFigureData(
        groundtruth["tics"],
        normalized(groundtruth["weight"]),
        engines,
        costs,
        snakemake.params.bins,
        snakemake.params.thresholds,
        snakemake.params.gpu,
    )
    write_protein_figures(data, {entry.name: snakemake.output[entry.name] for entry in figures(PROTEIN)})


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
