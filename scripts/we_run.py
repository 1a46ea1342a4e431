"""Snakemake entry point: run (or resume) WESTPA for one protein and engine."""

import _library  # noqa: F401  (puts src/ on sys.path)

from pathlib import Path

from westbench.we.pipeline import cg_engine_spec, max_walkers_per_worker, openmm_engine_spec, run_protein_we
from westbench.workflow import run_script, write_json


def main(snakemake):
    engine_threads = 1 if snakemake.params.platform.get("deterministic") else None
    if "model" in snakemake.input.keys():  # a CG engine (cg_<preset>): beads under a trained model
        settings, workers = snakemake.params.settings, snakemake.threads
        several = settings["work_manager"] != "serial" and workers > 1  # one worker per GPU shares each iteration
        engine = cg_engine_spec(snakemake.input.model, snakemake.wildcards.protein, snakemake.input.basis,
                                snakemake.params.cgml, threads=1 if several else workers,
                                **({"block_size": max_walkers_per_worker(settings, workers)} if several else {}))
    else:
        engine = openmm_engine_spec(snakemake.input.system, snakemake.input.state, snakemake.input.topology,
                                    snakemake.params.preparation, snakemake.params.platform, engine_threads,
                                    batch_walkers=snakemake.params.settings["batch_walkers"],
                                    max_walkers=max_walkers_per_worker(snakemake.params.settings, snakemake.threads))
    summary = run_protein_we(
        snakemake.params.run_dir,
        protein=snakemake.wildcards.protein,
        engine=engine,
        tica_model=str(Path(snakemake.input.tica).with_suffix("")),
        groundtruth_frames=snakemake.input.groundtruth,
        settings=snakemake.params.settings,
        seed=snakemake.params.seed,
        n_workers=snakemake.threads,
    )
    write_json({**summary, "engine_name": snakemake.wildcards.engine}, snakemake.output.summary)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
