"""Snakemake entry point: a protein's ground-truth starting structures."""

import _library  # noqa: F401  (puts src/ on sys.path)
import openmm
from openmm import app

from westbench.groundtruth.starts import collect_starts, generate_starts
from westbench.workflow import run_script


def main(snakemake):
    settings = snakemake.params.settings
    reference = app.PDBFile(snakemake.input.pdb).topology
    if settings["source"] == "directory":
        table = collect_starts(snakemake.input.files, reference, snakemake.output.starts)
    else:
        system = openmm.XmlSerializer.deserialize(open(snakemake.input.system).read())
        state = openmm.XmlSerializer.deserialize(open(snakemake.input.state).read())
        table = generate_starts(
            reference,
            system,
            state,
            settings,
            snakemake.params.preparation,
            snakemake.params.platform,
            snakemake.params.n_starts,
            snakemake.params.seed,
            snakemake.output.starts,
            threads=snakemake.threads,
        )
    table.to_csv(snakemake.output.table, index=False)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
