"""Snakemake entry point: acquire one protein's input structure."""

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.config import protein_spec
from westbench.structures import acquire_structure
from westbench.workflow import run_script, write_json


def main(snakemake):
    config = snakemake.config
    record = acquire_structure(
        protein_spec(config, snakemake.wildcards.protein),
        snakemake.output.pdb,
        structures_dir=config["structures_dir"],
        cache_dir=config["structure_cache"],
        download=config["download"],
    )
    write_json(record, snakemake.output.json)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
