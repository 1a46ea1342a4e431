"""Snakemake entry point: one protein's figures across engines (TIC 0/1 contours side by side, coverage vs compute)."""

import _library  # noqa: F401  (puts src/ on sys.path)

import pandas as pd

from westbench.frames import ok_frames, read_frames
from westbench.metrics.figures import coverage_vs_compute, engines_tic01
from westbench.metrics.weighted import normalized
from westbench.workflow import run_script


def main(snakemake):
    groundtruth = read_frames(snakemake.input.groundtruth)
    engines = {}
    for engine, path in zip(snakemake.params.engines, snakemake.input.frames, strict=True):  # identities as data
        frames = ok_frames(read_frames(path))
        engines[engine] = (frames["tics"], normalized(frames["weight"]))
    engines_tic01(groundtruth["tics"], normalized(groundtruth["weight"]), engines, snakemake.output.contours,
                  snakemake.params.bins)
    costs = {engine: pd.read_csv(path) for engine, path in zip(snakemake.params.engines, snakemake.input.costs,
                                                                  strict=True)}
    coverage_vs_compute(costs, snakemake.output.coverage, snakemake.params.thresholds, snakemake.params.gpu)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
