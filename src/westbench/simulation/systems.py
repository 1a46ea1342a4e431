"""Build and serialize the implicit- and explicit-solvent OpenMM systems.

Minimization: westbench.simulation.integration.

Examples
--------
>>> import tempfile, os
>>> from westbench.config import ProteinSpec
>>> from westbench.prepare.fixer import fix_structure
>>> from westbench.structures.peptide import write_extended_peptide
>>> path = os.path.join(tempfile.mkdtemp(), "in.pdb")
>>> write_extended_peptide("GYDPETGTWG", path)
>>> spec = ProteinSpec("chignolin", "Chignolin", None, "GYDPETGTWG", None, None, "sequence", None)
>>> topology, positions, _ = fix_structure(path, spec)
>>> system, modeller, _ = build_system("implicit", topology, positions, {})
>>> system.getNumParticles()
138
"""

from __future__ import annotations

import logging
import random
from pathlib import Path
from typing import Mapping

import numpy as np
import openmm
from openmm import app, unit

from westbench.config import section_defaults
from westbench.simulation import SOLVENTS

log = logging.getLogger(__name__)

DEFAULTS = section_defaults("preparation")
ION_NAMES = {
    "Na+": "NA",
    "K+": "K",
    "Li+": "LI",
    "Rb+": "RB",
    "Cs+": "CS",
    "Cl-": "CL",
    "Br-": "BR",
    "F-": "F",
    "I-": "I",
}


def _constraints(name: str):
    return None if name == "None" else getattr(app, name)


def force_field_files(solvent: str, settings: Mapping) -> list[str]:
    """The force-field XML files of a solvent model."""
    extra = settings["implicit_solvent"] if solvent == "implicit" else settings["water_model"]
    return list(settings["forcefield"]) + [extra]


def build_system(
    solvent: str, topology: app.Topology, positions, settings: Mapping, seed: int = 0
) -> tuple[openmm.System, app.Modeller, dict]:
    """Create the OpenMM system of a prepared protein.

    ``implicit``: force field + GB-neck2, no cutoff. ``explicit``: solvated in a
    padded box at the configured ionic strength (neutralized), PME, and a Monte
    Carlo barostat when ``barostat_interval`` > 0.

    Parameters
    ----------
    solvent : {'implicit', 'explicit'}
    topology, positions
        The prepared protein.
    settings : mapping
        The ``preparation`` config section (missing keys take the published values).
    seed : int
        Seeds ion placement (Python's ``random``) and the barostat.

    Returns
    -------
    system, modeller, parameters
        ``parameters`` records every value used, for the summary.
    """
    if solvent not in SOLVENTS:
        raise ValueError(f"solvent must be one of {SOLVENTS}, got {solvent!r}")
    s = {**DEFAULTS, **settings}
    files = force_field_files(solvent, s)
    forcefield = app.ForceField(*files)
    modeller = app.Modeller(topology, positions)
    common = dict(
        constraints=_constraints(s["constraints"]),
        rigidWater=True,
        hydrogenMass=s["hydrogen_mass_amu"] * unit.amu,
    )
    parameters = {
        "forcefield_files": files,
        "constraints": s["constraints"],
        "hydrogen_mass_amu": s["hydrogen_mass_amu"],
    }
    if solvent == "implicit":
        system = forcefield.createSystem(modeller.topology, nonbondedMethod=app.NoCutoff, **common)
        parameters["nonbonded_method"] = "NoCutoff"
    else:
        random.seed(seed)  # Modeller picks the waters it replaces by ions with `random`
        modeller.addSolvent(
            forcefield,
            model=s["water_geometry"],
            padding=s["padding_nm"] * unit.nanometer,
            boxShape=s["box_shape"],
            ionicStrength=s["ionic_strength_molar"] * unit.molar,
            positiveIon=s["positive_ion"],
            negativeIon=s["negative_ion"],
            neutralize=True,
        )
        system = forcefield.createSystem(
            modeller.topology,
            nonbondedMethod=app.PME,
            nonbondedCutoff=s["nonbonded_cutoff_nm"] * unit.nanometer,
            ewaldErrorTolerance=s["ewald_error_tolerance"],
            **common,
        )
        if s["barostat_interval"] > 0:
            barostat = openmm.MonteCarloBarostat(
                s["pressure_bar"] * unit.bar, s["temperature_k"] * unit.kelvin, s["barostat_interval"]
            )
            barostat.setRandomNumberSeed(seed)
            system.addForce(barostat)
        parameters.update(
            nonbonded_method="PME",
            nonbonded_cutoff_nm=s["nonbonded_cutoff_nm"],
            ewald_error_tolerance=s["ewald_error_tolerance"],
            padding_nm=s["padding_nm"],
            box_shape=s["box_shape"],
            ionic_strength_molar=s["ionic_strength_molar"],
            positive_ion=s["positive_ion"],
            negative_ion=s["negative_ion"],
            water_geometry=s["water_geometry"],
            pressure_bar=s["pressure_bar"],
            barostat_interval=s["barostat_interval"],
        )
    return system, modeller, parameters


def describe(system: openmm.System, topology: app.Topology, protein_residues: int) -> dict:
    """Counts for the summary: atoms, residues, waters, ions, net charge, box."""
    nonbonded = next(f for f in system.getForces() if isinstance(f, openmm.NonbondedForce))
    charges = [
        nonbonded.getParticleParameters(i)[0].value_in_unit(unit.elementary_charge)
        for i in range(system.getNumParticles())
    ]
    ion_names = set(ION_NAMES.values())
    residues = list(topology.residues())
    ions: dict[str, int] = {}
    for residue in residues:
        if residue.name in ion_names:
            ions[residue.name] = ions.get(residue.name, 0) + 1
    protein_atoms = sum(len(list(r.atoms())) for r in residues[:protein_residues])
    box = system.getDefaultPeriodicBoxVectors() if system.usesPeriodicBoundaryConditions() else None
    return {
        "atoms": system.getNumParticles(),
        "protein_atoms": protein_atoms,
        "residues": len(residues),
        "protein_residues": protein_residues,
        "waters": sum(1 for r in residues if r.name == "HOH"),
        "ions": ions,
        "net_charge": round(float(np.sum(charges)), 6),
        "protein_net_charge": round(float(np.sum(charges[:protein_atoms])), 6),
        "box_vectors_nm": [[round(v, 6) for v in vec.value_in_unit(unit.nanometer)] for vec in box] if box else None,
        "constraints": system.getNumConstraints(),
        "forces": sorted(type(f).__name__ for f in system.getForces()),
    }


def write_system(
    system: openmm.System,
    state: openmm.State,
    topology: app.Topology,
    system_xml: str | Path,
    state_xml: str | Path,
    pdb: str | Path,
) -> None:
    """Serialize the system and minimized state to XML and write the minimized coordinates as PDB."""
    Path(system_xml).write_text(openmm.XmlSerializer.serialize(system))
    Path(state_xml).write_text(openmm.XmlSerializer.serialize(state))
    if state.getPeriodicBoxVectors() is not None and system.usesPeriodicBoundaryConditions():
        topology.setPeriodicBoxVectors(state.getPeriodicBoxVectors())
    with open(pdb, "w") as handle:
        app.PDBFile.writeFile(topology, state.getPositions(), handle, keepIds=True)
