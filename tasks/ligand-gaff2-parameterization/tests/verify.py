"""Rerun antechamber (GAFF2, AM1-BCC), parmchk2 and tleap on the input and compare with the delivered topology.

Tolerances: charges 0.002 e per atom, net charge 1e-3 e; the OpenMM potential energy of the delivered prmtop at the
input coordinates within 0.01 kJ/mol of the reference prmtop's (same positions, no cut-off); masses 1e-3 amu of the
reference prmtop's (tleap writes both from GAFF2's table; repartitioned hydrogens are 2 amu heavier).
"""

import os
import re
import subprocess
import sys
import tempfile

import numpy as np
from verifykit import main

OUT = "/app/output"
AMBER_CHARGE = 18.2223


def prmtop_flag(path, flag):
    text = open(path).read()
    m = re.search(rf"%FLAG {flag}\s*\n%FORMAT\((\d+)([aAEeIi])(\d+)[^)]*\)\s*\n(.*?)(?=\n%FLAG|\Z)", text, re.S)
    assert m, f"{flag} not in {path}"
    kind, width = m.group(2).lower(), int(m.group(3))
    body = m.group(4).replace("\n", "") if kind == "a" else m.group(4)
    if kind == "a":
        return [body[i : i + width].strip() for i in range(0, len(body), width) if body[i : i + width].strip()]
    return [float(x) for x in body.split()]


def reference(tmp):
    def run(*cmd):
        r = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True)
        assert r.returncode == 0, f"{cmd[0]} failed: {r.stdout[-300:]}{r.stderr[-300:]}"

    run(
        "antechamber",
        "-i",
        "/app/inputs/toluene.sdf",
        "-fi",
        "sdf",
        "-o",
        "ref.mol2",
        "-fo",
        "mol2",
        "-c",
        "bcc",
        "-at",
        "gaff2",
        "-nc",
        "0",
        "-rn",
        "TOL",
        "-pf",
        "y",
    )
    run("parmchk2", "-i", "ref.mol2", "-f", "mol2", "-o", "ref.frcmod", "-s", "gaff2")
    open(f"{tmp}/leap.in", "w").write(
        "source leaprc.gaff2\nTOL = loadmol2 ref.mol2\nloadamberparams ref.frcmod\n"
        "saveamberparm TOL ref.prmtop ref.inpcrd\nquit\n"
    )
    run("tleap", "-f", "leap.in")
    return f"{tmp}/ref.prmtop"


def sdf_positions():
    lines = open("/app/inputs/toluene.sdf").read().splitlines()
    n = int(lines[3][:3])
    return np.array([[float(x) for x in l.split()[:3]] for l in lines[4 : 4 + n]]) / 10.0  # nm


def energy(prmtop, positions):
    import openmm
    import openmm.app as app
    import openmm.unit as unit

    p = app.AmberPrmtopFile(prmtop)
    system = p.createSystem(nonbondedMethod=app.NoCutoff, constraints=None)
    context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("Reference"))
    context.setPositions(positions * unit.nanometer)
    return context.getState(getEnergy=True).getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)


def mol2_atoms(path):
    text = open(path).read()
    block = text.split("@<TRIPOS>ATOM")[1].split("@<TRIPOS>")[0]
    rows = [l.split() for l in block.strip().splitlines()]
    return [r[5] for r in rows], np.array([float(r[8]) for r in rows])


def verify(checks):
    files = {k: f"{OUT}/ligand.{k}" for k in ("mol2", "frcmod", "prmtop", "inpcrd")}
    with checks.check("ligand.mol2, ligand.frcmod, ligand.prmtop and ligand.inpcrd present"):
        missing = [p for p in files.values() if not os.path.isfile(p)]
        assert not missing, f"missing {missing}"
    n_atoms = 0
    with checks.check("ligand.prmtop parses (OpenMM AmberPrmtopFile) with the input's 15 atoms", kind="format"):
        import openmm.app as app

        n_atoms = app.AmberPrmtopFile(files["prmtop"]).topology.getNumAtoms()
        assert n_atoms == 15, f"{n_atoms} atoms"
    with tempfile.TemporaryDirectory() as tmp:
        ref = reference(tmp)
        ref_types = prmtop_flag(ref, "AMBER_ATOM_TYPE")
        ref_charges = np.array(prmtop_flag(ref, "CHARGE")) / AMBER_CHARGE
        # A missing or unreadable deliverable fails each check that needs it, with the reason naming the file (so a
        # trial that delivers nothing still records every check).
        errors = {k: f"deliverable {p} was not written" for k, p in files.items() if not os.path.isfile(p)}
        types, charges = [], np.zeros(0)
        if "prmtop" not in errors:
            try:
                types = prmtop_flag(files["prmtop"], "AMBER_ATOM_TYPE")
                charges = np.array(prmtop_flag(files["prmtop"], "CHARGE")) / AMBER_CHARGE
            except Exception as exc:
                errors["prmtop"] = f"{files['prmtop']} unreadable: {type(exc).__name__}: {exc}"

        def need(*keys):
            for key in keys:
                assert key not in errors, errors[key]

        with checks.check("the residue is named TOL (the prmtop's RESIDUE_LABEL)"):
            need("prmtop")
            labels = prmtop_flag(files["prmtop"], "RESIDUE_LABEL")
            assert labels == ["TOL"], f"residues {labels}"
        with checks.check("atom types are antechamber's GAFF2 types of the input, in input order"):
            need("prmtop")
            assert types == ref_types, f"{types} vs {ref_types}"
        with checks.check("charges are AM1-BCC (antechamber/sqm rerun, 0.002 e per atom), net charge 0"):
            need("prmtop")
            assert abs(charges.sum()) <= 1e-3, f"net charge {charges.sum():.4f}"
            assert np.abs(charges - ref_charges).max() <= 0.002, (
                f"max deviation {np.abs(charges - ref_charges).max():.4f} e"
            )
        with checks.check("ligand.mol2 carries the same GAFF2 types and charges as the prmtop"):
            need("mol2", "prmtop")
            mtypes, mcharges = mol2_atoms(files["mol2"])
            assert mtypes == types and np.abs(mcharges - charges).max() <= 1e-3, "mol2 and prmtop differ"
        with checks.check("parmchk2 found every parameter (no 'ATTN, need revision' in ligand.frcmod)"):
            need("frcmod")
            assert "ATTN" not in open(files["frcmod"]).read(), "parameters parmchk2 could not assign"
        with checks.check(
            "OpenMM energy of the delivered prmtop equals the GAFF2 reference's at the input geometry (0.01 kJ/mol)"
        ):
            need("prmtop")
            x = sdf_positions()
            e, e_ref = energy(files["prmtop"], x), energy(ref, x)
            assert abs(e - e_ref) <= 0.01, f"{e:.4f} vs {e_ref:.4f} kJ/mol"
        with checks.check("atomic masses are tleap's GAFF2 masses (1e-3 amu): no hydrogen mass repartitioning"):
            # the energy above does not depend on the masses: a repartitioned topology (hydrogens 3.024 amu) passes it
            need("prmtop")
            masses, ref_masses = np.array(prmtop_flag(files["prmtop"], "MASS")), np.array(prmtop_flag(ref, "MASS"))
            assert masses.shape == ref_masses.shape, f"{len(masses)} masses, the reference has {len(ref_masses)}"
            worst = int(np.abs(masses - ref_masses).argmax())
            assert abs(masses[worst] - ref_masses[worst]) <= 1e-3, (
                f"atom {worst + 1} ({ref_types[worst]}): {masses[worst]:.4f} amu, GAFF2's {ref_masses[worst]:.4f}"
            )
        with checks.check("ligand.inpcrd holds the input geometry (0.001 nm)"):
            need("inpcrd")
            import openmm.app as app
            import openmm.unit as unit

            pos = np.array(app.AmberInpcrdFile(files["inpcrd"]).getPositions().value_in_unit(unit.nanometer))
            assert pos.shape == (15, 3) and np.abs(pos - sdf_positions()).max() <= 0.001, (
                "coordinates differ from the input"
            )


sys.exit(main(verify))
