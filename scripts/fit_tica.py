"""Snakemake entry point: fit a protein's TICA on its ground truth, project every frame, draw TIC 0/1."""

from pathlib import Path

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.features import ca_positions
from westbench.frames import write_frames
from westbench.report.plots import tic_density
from westbench.tica import fit_groundtruth
from westbench.workflow import run_script


def main(snakemake):
    protein, params = snakemake.wildcards.protein, snakemake.params
    reference = snakemake.input.get("reference")
    model, frames = fit_groundtruth(
        snakemake.input.frames,
        protein,
        params.lag_frames,
        params.dim,
        features=params.features,
        reference=ca_positions(reference) if reference else None,
        seed=params.seed,
        memory_gb=params.memory_gb,
        min_pairs_per_feature=params.min_pairs_per_feature,
    )
    model.save(Path(snakemake.output.model).with_suffix(""))
    attrs = {"protein": protein, "source": "groundtruth", **model.frames_attrs()}
    write_frames(snakemake.output.frames, attrs=attrs, **frames)
    # The start of each run is its first saved frame's neighbour; mark the first frame of each run.
    first = frames["tics"][[list(frames["traj"]).index(t) for t in sorted(set(frames["traj"]))]]
    tic_density(
        frames["tics"],
        snakemake.output.figure,
        bins=params.density_bins,
        title=f"{protein}: ground truth ({len(snakemake.input.frames)} runs)",
        marks=first[:, :2],
        mark_label="run starts",
    )


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
