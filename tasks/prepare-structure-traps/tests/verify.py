"""Checks of prepared.pdb against the raw input, with OpenMM."""

import sys

import numpy as np
from openmm import app, unit
from verifykit import main

RAW, OUT = "/app/inputs/raw.pdb", "/app/output/prepared.pdb"


def raw_model1():
    """Atoms of model 1 of the raw file: (resname, resnum, name, altloc, occupancy) -> position in nm."""
    atoms = {}
    for line in open(RAW):
        if line.startswith("ENDMDL"):
            break
        if line.startswith(("ATOM", "HETATM")):
            key = (line[17:20], int(line[22:26]), line[12:16].strip(), line[16])
            atoms[key] = np.array([float(line[30:38]), float(line[38:46]), float(line[46:54])]) / 10
    return atoms


def verify(checks):
    raw = raw_model1()
    pdb = None
    with checks.check("prepared.pdb is a PDB file OpenMM reads"):
        pdb = app.PDBFile(OUT)
    if pdb is None:
        for name in (
            "one model",
            "no alternate locations",
            "protein sequence GYDPETGTWG",
            "first model kept",
            "highest-occupancy alternate location kept",
            "non-protein chain removed",
            "crystal waters kept in place",
            "waters carry two hydrogens each",
            "Amber14/TIP3P-FB templates match every residue",
            "protonation at pH 7 (net charge -2)",
            "protein chain first, then the waters as residues HOH with atoms O, H1, H2",
        ):
            checks.require(name, False, "no readable prepared.pdb")
        return
    lines = open(OUT).read().splitlines()
    atoms = [l for l in lines if l.startswith(("ATOM", "HETATM"))]
    checks.require(
        "one model",
        sum(l.startswith("MODEL") for l in lines) <= 1 and pdb.getNumFrames() == 1,
        f"{pdb.getNumFrames()} models",
    )
    checks.require("no alternate locations", all(l[16] == " " for l in atoms), "alternate-location indicators left")
    residues = list(pdb.topology.residues())
    protein = [r for r in residues if r.name not in ("HOH", "WAT", "SO4", "GOL")]
    three = {"GLY": "G", "TYR": "Y", "ASP": "D", "PRO": "P", "GLU": "E", "THR": "T", "TRP": "W"}
    sequence = "".join(three.get(r.name, "X") for r in protein)
    checks.require("protein sequence GYDPETGTWG", sequence == "GYDPETGTWG", f"sequence {sequence}")
    positions = np.array(pdb.positions.value_in_unit(unit.nanometer))
    with checks.check("first model kept"):
        ca = [(r, a) for r in protein for a in r.atoms() if a.name == "CA"]
        assert len(ca) == 10, f"{len(ca)} CA atoms"
        deviation = max(
            np.linalg.norm(positions[a.index] - raw[("%s" % r.name, i + 1, "CA", " ")]) for i, (r, a) in enumerate(ca)
        )
        assert deviation < 0.01, f"CA atoms are {deviation:.3f} nm from model 1"
    with checks.check("highest-occupancy alternate location kept"):
        trp = [r for r in protein if r.name == "TRP"][0]
        for atom in trp.atoms():
            key = ("TRP", 9, atom.name, "A")
            if key in raw:
                assert np.linalg.norm(positions[atom.index] - raw[key]) < 0.01, f"TRP {atom.name} not at altloc A"
    checks.require("non-protein chain removed", not any(r.name in ("SO4", "GOL") for r in residues), "SO4/GOL left")
    waters = [r for r in residues if r.name == "HOH"]
    with checks.check("crystal waters kept in place"):
        expected = [v for k, v in raw.items() if k[0] == "HOH"]
        assert len(waters) == len(expected) == 4, f"{len(waters)} waters, expected {len(expected)}"
        for water in waters:
            oxygen = [a for a in water.atoms() if a.element.symbol == "O"][0]
            assert min(np.linalg.norm(positions[oxygen.index] - e) for e in expected) < 0.01, "a water moved"
    with checks.check("waters carry two hydrogens each"):
        assert waters, "no waters"
        for water in waters:
            symbols = sorted(a.element.symbol for a in water.atoms())
            assert symbols == ["H", "H", "O"], f"water {water.id} has {symbols}"
    with checks.check("protein chain first, then the waters as residues HOH with atoms O, H1, H2"):
        # read from the file's lines as written (OpenMM's reader renames atoms to its templates' names)
        order, names = [], {}
        for line in atoms:
            key = (line[21], line[22:27], line[17:20].strip())
            if not order or order[-1] != key:
                order.append(key)
            names.setdefault(key, []).append(line[12:16].strip())
        kinds = ["water" if key[2] == "HOH" else "protein" for key in order]
        assert "water" in kinds, "no HOH residues"
        assert kinds == sorted(kinds, key=lambda k: k == "water"), "a water before a protein residue"
        wrong = [names[key] for key in order if key[2] == "HOH" and names[key] != ["O", "H1", "H2"]]
        assert not wrong, f"water atoms {wrong[0]}, not O, H1, H2"
    system = None
    with checks.check("Amber14/TIP3P-FB templates match every residue"):
        system = app.ForceField("amber14-all.xml", "amber14/tip3pfb.xml").createSystem(
            pdb.topology, nonbondedMethod=app.NoCutoff
        )
    with checks.check("protonation at pH 7 (net charge -2)"):
        assert system is not None, "no system"
        force = [f for f in system.getForces() if type(f).__name__ == "NonbondedForce"][0]
        charge = sum(
            force.getParticleParameters(i)[0].value_in_unit(unit.elementary_charge)
            for i in range(system.getNumParticles())
        )
        assert abs(charge + 2) < 1e-3, f"net charge {charge:.3f}"


sys.exit(main(verify))
