"""Snakemake entry point: build, minimize and serialize one solvent model of a protein."""

import _library  # noqa: F401  (puts src/ on sys.path)

import openmm
from openmm import app

from westbench.prepare import build_system, write_system
from westbench.prepare.systems import describe
from westbench.simulation.integration import minimize
from westbench.workflow import run_script, write_json


def main(snakemake):
    solvent, seed = snakemake.wildcards.solvent, snakemake.params.seed
    settings = snakemake.params.settings
    pdb = app.PDBFile(snakemake.input.pdb)
    system, modeller, parameters = build_system(solvent, pdb.topology, pdb.positions, settings, seed=seed)
    state, record = minimize(system, modeller.positions, settings, snakemake.params.platform, snakemake.threads, seed=seed)
    write_system(system, state, modeller.topology, snakemake.output.system, snakemake.output.state, snakemake.output.pdb)
    summary = {
        "protein": snakemake.wildcards.protein,
        "solvent": solvent,
        "seed": seed,
        "openmm_version": openmm.__version__,
        "parameters": parameters,
        "minimization": record,
        **describe(system, modeller.topology, pdb.topology.getNumResidues()),
    }
    write_json(summary, snakemake.output.json)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
