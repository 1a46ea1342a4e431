"""Snakemake entry point: run (or resume) WESTPA for one protein and engine."""

from pathlib import Path

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.config import section_defaults
from westbench.engines.kinds import CG, USER
from westbench.resources import we_job_workers
from westbench.we.launch import engine_spec, run_protein_we
from westbench.workflow import run_script, write_json


def main(snakemake):
    settings, protein = snakemake.params.settings, snakemake.wildcards.protein
    engine = engine_spec(
        snakemake.params.kind,
        snakemake.input,
        protein=protein,
        settings=settings,
        job_threads=snakemake.threads,
        preparation=snakemake.params.preparation,
        platform=snakemake.params.platform,
        cg=snakemake.params.cg,
        user=settings.get("user_engine"),
    )
    kind, cg = snakemake.params.kind, snakemake.params.cg or {}
    work = settings["user_engine"]["work"] if kind == USER else "torch" if kind == CG else "openmm"
    workers = we_job_workers(
        work,
        snakemake.threads,
        settings["work_manager"],
        snakemake.params.platform or {},
        device=cg.get("device", section_defaults("cg")["device"]),
    )
    summary = run_protein_we(
        snakemake.params.run_dir,
        protein=protein,
        engine=engine,
        tica_model=str(Path(snakemake.input.tica).with_suffix("")),
        groundtruth_frames=snakemake.input.groundtruth,
        settings=settings,
        seed=snakemake.params.seed,
        n_workers=workers,
    )
    write_json({**summary, "engine_name": snakemake.wildcards.engine}, snakemake.output.summary)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
