"""The system-building step: one solvent model of a prepared protein, minimized and serialized.

Examples
--------
>>> import json, tempfile
>>> from pathlib import Path
>>> from openmm import app
>>> from westbench.config import ProteinSpec
>>> from westbench.prepare.fixer import fix_structure
>>> from westbench.structures.peptide import write_extended_peptide
>>> folder = Path(tempfile.mkdtemp())
>>> write_extended_peptide("GYDPETGTWG", folder / "in.pdb")
>>> spec = ProteinSpec("chignolin", "Chignolin", None, "GYDPETGTWG", None, None, "sequence", None)
>>> topology, positions, _ = fix_structure(folder / "in.pdb", spec, seed=3)
>>> app.PDBFile.writeFile(topology, positions, open(folder / "prepared.pdb", "w"))
>>> outputs = {name: folder / f"implicit.{suffix}" for name, suffix in
...            [("system", "xml"), ("state", "state.xml"), ("pdb", "pdb"), ("json", "json")]}
>>> summary = prepare_system(folder / "prepared.pdb", "implicit", {"minimize_max_iterations": 20}, {"name": "CPU"},
...                          protein="chignolin", seed=1, threads=1, outputs=outputs)
>>> summary["atoms"], summary["solvent"], json.loads(outputs["json"].read_text())["seed"]
(138, 'implicit', 1)
"""

from __future__ import annotations

from typing import Mapping

import openmm
from openmm import app

from westbench.io.records import write_json
from westbench.simulation.integration import minimize
from westbench.simulation.systems import build_system, describe, write_system


def prepare_system(
    prepared_pdb,
    solvent: str,
    settings: Mapping,
    platform: Mapping,
    *,
    protein: str,
    seed: int,
    threads: int | None,
    outputs: Mapping,
) -> dict:
    """Build ``solvent``'s system around a prepared protein, minimize it, write it; return its summary.

    Parameters
    ----------
    prepared_pdb : path
        The prepared (fixed, protonated) protein.
    solvent : {"implicit", "explicit"}
        The solvent model.
    settings : mapping
        The ``preparation`` keys of this solvent model (force field, box, ions, minimization).
    platform : mapping
        The ``platform`` section the minimization runs on.
    protein : str
        Its id, recorded in the summary.
    seed : int
        Seed of ion placement and the minimization's velocities.
    threads : int, optional
        CPU threads of the minimization.
    outputs : mapping
        Paths ``system``, ``state`` (serialized XML), ``pdb`` (the solvated topology) and ``json`` (the summary).
    """
    pdb = app.PDBFile(str(prepared_pdb))
    system, modeller, parameters = build_system(solvent, pdb.topology, pdb.positions, settings, seed=seed)
    state, record = minimize(system, modeller.positions, settings, platform, threads, seed=seed)
    write_system(system, state, modeller.topology, outputs["system"], outputs["state"], outputs["pdb"])
    summary = {
        "protein": protein,
        "solvent": solvent,
        "seed": seed,
        "openmm_version": openmm.__version__,
        "parameters": parameters,
        "minimization": record,
        **describe(system, modeller.topology, pdb.topology.getNumResidues()),
    }
    write_json(summary, outputs["json"])
    return summary
