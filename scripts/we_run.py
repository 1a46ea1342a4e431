"""Snakemake entry point: run (or resume) WESTPA for one protein and engine."""

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.io.records import write_json
from westbench.we.launch import run_we_job
from westbench.workflow import run_script


def main(snakemake):
    params = snakemake.params
    summary = run_we_job(
        params.run_dir,
        kind=params.kind,
        inputs=snakemake.input,
        protein=snakemake.wildcards.protein,
        engine_name=snakemake.wildcards.engine,
        settings=params.settings,
        job_threads=snakemake.threads,
        seed=params.seed,
        preparation=params.preparation,
        platform=params.platform,
        cg=params.cg,
    )
    write_json(summary, snakemake.output.summary)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
