"""Snakemake entry point: run (or resume) WESTPA for one protein and engine."""

import _library  # noqa: F401  (puts src/ on sys.path)

from pathlib import Path

from westbench.engines.kinds import CG
from westbench.resources import engine_threads, we_workers
from westbench.we.pipeline import cg_engine_spec, max_walkers_per_worker, openmm_engine_spec, run_protein_we
from westbench.workflow import run_script, write_json


def main(snakemake):
    settings = snakemake.params.settings
    workers = we_workers(snakemake.threads, settings["work_manager"])
    threads = engine_threads(snakemake.threads, settings["work_manager"])
    if snakemake.params.kind == CG:  # beads under a trained model
        # Several workers share each iteration: each gets at most its share of the walkers in one batch.
        engine = cg_engine_spec(snakemake.input.model, snakemake.wildcards.protein, snakemake.input.basis,
                                snakemake.params.cgml, threads=threads,
                                **({"block_size": max_walkers_per_worker(settings, workers)} if workers > 1 else {}))
    else:
        engine = openmm_engine_spec(snakemake.input.system, snakemake.input.state, snakemake.input.topology,
                                    snakemake.params.preparation, snakemake.params.platform, threads,
                                    batch_walkers=settings["batch_walkers"],
                                    max_walkers=max_walkers_per_worker(settings, workers))
    summary = run_protein_we(
        snakemake.params.run_dir,
        protein=snakemake.wildcards.protein,
        engine=engine,
        tica_model=str(Path(snakemake.input.tica).with_suffix("")),
        groundtruth_frames=snakemake.input.groundtruth,
        settings=settings,
        seed=snakemake.params.seed,
        n_workers=workers,
    )
    write_json({**summary, "engine_name": snakemake.wildcards.engine}, snakemake.output.summary)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
