"""Snakemake entry point: build, minimize and serialize one solvent model of a protein."""

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.prepare.solvated import prepare_system
from westbench.workflow import run_script


def main(snakemake):
    prepare_system(
        snakemake.input.pdb,
        snakemake.wildcards.solvent,
        snakemake.params.settings,
        snakemake.params.platform,
        protein=snakemake.wildcards.protein,
        seed=snakemake.params.seed,
        threads=snakemake.threads,
        outputs=dict(snakemake.output.items()),
    )


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
