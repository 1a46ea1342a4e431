"""Snakemake entry point: one task's mutants through its verifier (westbench.agents.mutation_run)."""

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.agents.mutation_run import mutate_task
from westbench.workflow import run_script, write_json


def main(snakemake):
    settings = snakemake.params.settings
    engine = settings["environment"] if settings["environment"] in ("docker", "podman") else "docker"
    record = mutate_task(
        snakemake.params.task_dir,
        snakemake.params.cache_dir,
        engine=engine,
        operators=settings["mutation"]["operators"] or None,
        levels=settings["mutation"]["levels"],
    )
    write_json(record, snakemake.output.json)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
