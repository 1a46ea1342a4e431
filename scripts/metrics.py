"""Snakemake entry point: the metric suite of one engine against the ground truth."""

import _library  # noqa: F401  (puts src/ on sys.path)

import pandas as pd

from westbench.frames import ok_frames, read_frames
from westbench.metrics.suite import compute_metrics
from westbench.workflow import run_script, write_json


def main(snakemake):
    settings = dict(snakemake.params.settings)
    groundtruth = read_frames(snakemake.input.groundtruth)
    model = ok_frames(read_frames(snakemake.input.model))  # walkers a CG engine ended (exploded) are left out
    results, tables = {}, []
    for weighting in settings.pop("weightings"):
        values, table = compute_metrics(groundtruth, model, weighting, settings)
        results[weighting] = values
        tables.append(table)
    table = pd.concat(tables, ignore_index=True)
    table.insert(0, "engine", snakemake.wildcards.engine)
    table.insert(0, "protein", snakemake.wildcards.protein)
    table.to_csv(snakemake.output.csv, index=False)
    write_json({"protein": snakemake.wildcards.protein, "engine": snakemake.wildcards.engine,
                "frames": len(model["ca"]), "groundtruth_frames": len(groundtruth["ca"]), "settings": settings,
                "metrics": results}, snakemake.output.json)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
