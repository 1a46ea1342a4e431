"""Snakemake entry point: select and repair one protein with PDBFixer."""

import _library  # noqa: F401  (puts src/ on sys.path)
from openmm import app

from westbench.config import protein_spec
from westbench.prepare import fix_structure
from westbench.workflow import run_script, write_json


def main(snakemake):
    topology, positions, report = fix_structure(
        snakemake.input.pdb,
        protein_spec(snakemake.config, snakemake.wildcards.protein),
        snakemake.params.settings,
        seed=snakemake.params.seed,
    )
    with open(snakemake.output.pdb, "w") as handle:
        app.PDBFile.writeFile(topology, positions, handle, keepIds=True)
    write_json({**report, "seed": snakemake.params.seed}, snakemake.output.json)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
