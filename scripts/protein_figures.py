"""Snakemake entry point: one protein's figures across engines (TIC 0/1 contours side by side, coverage vs compute)."""

import _library  # noqa: F401  (puts src/ on sys.path)

from pathlib import Path

import pandas as pd

from westbench.frames import ok_frames, read_frames
from westbench.metrics.figures import coverage_vs_compute, engines_tic01
from westbench.metrics.weighted import normalized
from westbench.workflow import run_script


def main(snakemake):
    groundtruth = read_frames(snakemake.input.groundtruth)
    engines = {}
    for path in snakemake.input.frames:
        frames = ok_frames(read_frames(path))
        engines[Path(path).parts[-2]] = (frames["tics"], normalized(frames["weight"]))
    engines_tic01(groundtruth["tics"], normalized(groundtruth["weight"]), engines, snakemake.output.contours,
                  snakemake.params.bins)
    costs = {Path(path).parts[-2]: pd.read_csv(path) for path in snakemake.input.costs}
    coverage_vs_compute(costs, snakemake.output.coverage, snakemake.params.thresholds, snakemake.params.gpu)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
