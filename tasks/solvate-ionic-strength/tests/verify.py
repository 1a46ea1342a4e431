"""Checks of the solvated system with OpenMM."""

import sys
import xml.etree.ElementTree as ET

import numpy as np
import openmm
from openmm import app, unit
from verifykit import load_json, main

OUT = "/app/output"
NAMES = (
    "system.xml deserializes to an OpenMM System",
    "solvated.pdb has a periodic box",
    "particles match the PDB atoms",
    "peptide intact and first",
    "PME with a 1.0 nm cutoff",
    "bonds to hydrogen constrained, and only those (one constraint per peptide hydrogen)",
    "TIP3P-FB water",
    "net charge zero",
    "Na+ - Cl- neutralizes the peptide",
    "ionic strength 0.1 M",
    "a cubic box with at least 1.0 nm padding, the System's box the PDB's",
    "build.json matches the system",
    "system.xml is the System the stated force field and settings build from solvated.pdb (energy of every force)",
)


def force_settings(system):
    """Every force's settings as its serialized element states them (method, cutoff, switching function and distance,
    dispersion correction, Ewald tolerance, PME grid, ...), per force class in order: what an energy at one set of
    positions need not show (a switching function from 0.9 nm moves the nonbonded energy by 6e-6 relative)."""
    settings = {}
    for force in system.getForces():
        attributes = ET.fromstring(openmm.XmlSerializer.serialize(force)).attrib
        kept = {k: v for k, v in attributes.items() if k not in ("version", "forceGroup", "name")}
        settings.setdefault(type(force).__name__, []).append(kept)
    return settings


def force_energies(system, pdb):
    """Each force's energy (kJ/mol, by force class; CMMotionRemover left out) at the PDB's positions and box."""
    import copy

    system = copy.deepcopy(system)
    names = {}
    for i, force in enumerate(system.getForces()):
        force.setForceGroup(i)
        names[i] = type(force).__name__
    # the CPU platform on one thread: the Reference platform's PME takes about 20 s for this box; both systems are
    # evaluated on the same platform, which gives a System the same energy every time
    platform = openmm.Platform.getPlatformByName("CPU")
    context = openmm.Context(system, openmm.VerletIntegrator(0.001), platform, {"Threads": "1"})
    context.setPeriodicBoxVectors(*pdb.topology.getPeriodicBoxVectors())
    context.setPositions(pdb.positions)
    energies = {}
    for i, name in names.items():
        if name == "CMMotionRemover":
            continue
        energy = (
            context.getState(getEnergy=True, groups={i}).getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)
        )
        energies[name] = energies.get(name, 0.0) + energy
    return energies


def verify(checks):
    system = pdb = None
    with checks.check(NAMES[0]):
        system = openmm.XmlSerializer.deserialize(open(f"{OUT}/system.xml").read())
    with checks.check(NAMES[1]):
        pdb = app.PDBFile(f"{OUT}/solvated.pdb")
        assert pdb.topology.getPeriodicBoxVectors() is not None, "no CRYST1 record"
    if system is None or pdb is None:
        for name in NAMES[2:]:
            checks.require(name, False, "system.xml or solvated.pdb missing or unreadable")
        return
    top = pdb.topology
    checks.require(
        NAMES[2],
        system.getNumParticles() == top.getNumAtoms(),
        f"{system.getNumParticles()} particles, {top.getNumAtoms()} atoms",
    )
    residues = list(top.residues())
    reference = app.PDBFile("/app/inputs/peptide.pdb").topology
    names = [r.name for r in residues]
    checks.require(
        NAMES[3],
        names[:10] == [r.name for r in reference.residues()]
        and sum(1 for r in residues[:10] for _ in r.atoms()) == reference.getNumAtoms(),
        "peptide not first or incomplete",
    )
    nonbonded = [f for f in system.getForces() if isinstance(f, openmm.NonbondedForce)]
    checks.require(
        NAMES[4],
        len(nonbonded) == 1
        and nonbonded[0].getNonbondedMethod() == openmm.NonbondedForce.PME
        and abs(nonbonded[0].getCutoffDistance().value_in_unit(unit.nanometer) - 1.0) < 1e-3,
        "not PME at 1.0 nm",
    )
    constrained = {system.getConstraintParameters(i)[0] for i in range(system.getNumConstraints())} | {
        system.getConstraintParameters(i)[1] for i in range(system.getNumConstraints())
    }
    peptide_h = {a.index for r in residues[:10] for a in r.atoms() if a.element.symbol == "H"}
    peptide_atoms = {a.index for r in residues[:10] for a in r.atoms()}
    peptide_constraints = sum(
        1
        for i in range(system.getNumConstraints())
        if system.getConstraintParameters(i)[0] in peptide_atoms
        or system.getConstraintParameters(i)[1] in peptide_atoms
    )
    checks.require(
        NAMES[5],
        peptide_h <= constrained and peptide_constraints == len(peptide_h),
        f"{len(peptide_h - constrained)} peptide hydrogens unconstrained; {peptide_constraints} constraints in the "
        f"peptide for {len(peptide_h)} bonds to hydrogen",
    )
    charges = (
        np.array(
            [
                nonbonded[0].getParticleParameters(i)[0].value_in_unit(unit.elementary_charge)
                for i in range(system.getNumParticles())
            ]
        )
        if nonbonded
        else np.zeros(0)
    )
    water_o = [a.index for r in residues if r.name == "HOH" for a in r.atoms() if a.element.symbol == "O"]
    checks.require(
        NAMES[6],
        bool(water_o) and abs(charges[water_o[0]] + 0.848448) < 1e-4,
        f"water oxygen charge {charges[water_o[0]] if water_o else None} (TIP3P-FB: -0.848448)",
    )
    checks.require(NAMES[7], abs(charges.sum()) < 1e-3, f"net charge {charges.sum():.4f}")
    waters, sodium, chloride = names.count("HOH"), names.count("NA"), names.count("CL")
    peptide_charge = round(charges[: reference.getNumAtoms()].sum())
    checks.require(
        NAMES[8], sodium - chloride == -peptide_charge, f"Na {sodium}, Cl {chloride}, peptide {peptide_charge}"
    )
    # Two defensible conventions: per water molecule (OpenMM's Modeller, 55.4 M water) or per box volume
    # (GROMACS genion)
    expected_pairs = 0.1 / 55.4 * (waters + sodium + chloride)
    box_vectors = top.getPeriodicBoxVectors()
    volume = float(
        np.linalg.det(np.array([[box_vectors[i][j].value_in_unit(unit.nanometer) for j in range(3)] for i in range(3)]))
    )
    by_volume = 0.1 * 0.6022 * volume
    checks.require(
        NAMES[9],
        any(abs(min(sodium, chloride) - e) <= 1.0 for e in (expected_pairs, by_volume)),
        f"{min(sodium, chloride)} ion pairs, expected {expected_pairs:.1f} (per water) "
        f"or {by_volume:.1f} (per volume) for 0.1 M",
    )
    with checks.check(NAMES[10]):
        xyz = np.array(pdb.positions.value_in_unit(unit.nanometer))[: reference.getNumAtoms()]
        extent = xyz.max(axis=0) - xyz.min(axis=0)
        box = np.array([top.getPeriodicBoxVectors()[i][i].value_in_unit(unit.nanometer) for i in range(3)])
        assert np.all(box >= extent + 2.0 - 0.05), f"box {box.round(3)} for a solute extent {extent.round(3)}"
        assert np.ptp(box) < 1e-3, f"box {box.round(3)} is not cubic"
        vectors = system.getDefaultPeriodicBoxVectors()
        system_box = np.array([vectors[i][i].value_in_unit(unit.nanometer) for i in range(3)])
        assert np.allclose(system_box, box, atol=1e-3), f"the System's box {system_box.round(3)}, the PDB's {box}"
    with checks.check(NAMES[12]):
        # rebuilt from the delivered structure with the instruction's settings: every force's energy at the same
        # positions must agree (a parameter, mass or constraint set changed anywhere shows up)
        reference = app.ForceField("amber14-all.xml", "amber14/tip3pfb.xml").createSystem(
            top, nonbondedMethod=app.PME, nonbondedCutoff=1.0 * unit.nanometer, constraints=app.HBonds
        )
        assert reference.getNumConstraints() == system.getNumConstraints(), (
            f"{system.getNumConstraints()} constraints, the settings give {reference.getNumConstraints()}"
        )
        constraints = sorted(
            (min(a, b), max(a, b), d._value)
            for a, b, d in map(system.getConstraintParameters, range(system.getNumConstraints()))
        )
        ref_constraints = sorted(
            (min(a, b), max(a, b), d._value)
            for a, b, d in map(reference.getConstraintParameters, range(reference.getNumConstraints()))
        )
        assert [c[:2] for c in constraints] == [c[:2] for c in ref_constraints] and np.allclose(
            [c[2] for c in constraints], [c[2] for c in ref_constraints], rtol=1e-6
        ), "constrained pairs or their distances differ from the force field's"
        masses = [system.getParticleMass(i)._value for i in range(system.getNumParticles())]
        ref_masses = [reference.getParticleMass(i)._value for i in range(reference.getNumParticles())]
        assert np.allclose(masses, ref_masses, atol=1e-6), "particle masses differ from the force field's"
        stated, built = force_settings(system), force_settings(reference)
        differ = [
            f"{name} {key} {mine.get(key)} (the settings give {theirs.get(key)})"
            for name in sorted(set(stated) | set(built))
            for mine, theirs in zip(stated.get(name, []), built.get(name, []))
            for key in sorted(set(mine) | set(theirs))
            if mine.get(key) != theirs.get(key)
        ]
        assert not differ, "force settings differ from the stated ones: " + "; ".join(differ)
        got, want = force_energies(system, pdb), force_energies(reference, pdb)
        assert sorted(got) == sorted(want), f"forces {sorted(got)}, the settings give {sorted(want)}"
        for name in want:
            # the same System on the same platform gives the same energy to rounding: 1e-5 relative still tells a
            # changed 1-4 scaling or Ewald setting from it
            assert abs(got[name] - want[name]) <= 1e-5 * max(100.0, abs(want[name])), (
                f"{name}: {got[name]:.3f} kJ/mol, the settings give {want[name]:.3f}"
            )
    with checks.check(NAMES[11]):
        build = load_json(f"{OUT}/build.json")
        assert (build["waters"], build["sodium"], build["chloride"]) == (waters, sodium, chloride), (
            f"build.json says {build}"
        )
        assert np.allclose(build["box_nm"], box, atol=1e-3), "box_nm differs from the PDB box"


sys.exit(main(verify))
