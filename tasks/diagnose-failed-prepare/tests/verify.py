"""Parse the log for the failing residue, then build the repaired structure with OpenMM."""

import re
import sys

import numpy as np
from openmm import app, unit
from verifykit import load_json, main


def verify(checks):
    log = open("/app/inputs/prepare.log").read()
    index = int(re.search(r"No template found for residue (\d+)", log).group(1))
    original = app.PDBFile("/app/inputs/input.pdb")
    residue = list(original.topology.residues())[index]
    diagnosis = {}
    with checks.check("diagnosis.json readable"):
        diagnosis = load_json("/app/output/diagnosis.json")
    checks.require("cause", diagnosis.get("cause") == "missing_hydrogens", f"cause {diagnosis.get('cause')}")
    named = diagnosis.get("residue") if isinstance(diagnosis.get("residue"), dict) else {}
    checks.require(
        "residue named by the error",
        named.get("name") == residue.name and str(named.get("number")) == residue.id,
        f"{named} (the log names {residue.name} {residue.id})",
    )
    fixed = system = None
    with checks.check("fixed.pdb readable"):
        fixed = app.PDBFile("/app/output/fixed.pdb")
    with checks.check("amber14-all createSystem accepts fixed.pdb"):
        system = app.ForceField("amber14-all.xml").createSystem(fixed.topology)
    with checks.check("original atoms kept in place"):
        before = {
            (a.residue.id, a.name): p
            for a, p in zip(original.topology.atoms(), original.positions.value_in_unit(unit.nanometer))
        }
        after = {
            (a.residue.id, a.name): p
            for a, p in zip(fixed.topology.atoms(), fixed.positions.value_in_unit(unit.nanometer))
        }
        missing = [k for k in before if k not in after]
        assert not missing, f"atoms lost: {missing[:5]}"
        moved = max(np.linalg.norm(np.array(before[k]) - np.array(after[k])) for k in before)
        assert moved < 0.002, f"an atom moved by {moved:.4f} nm"
    with checks.check("protonation at pH 7 (net charge -2)"):
        force = [f for f in system.getForces() if type(f).__name__ == "NonbondedForce"][0]
        charge = sum(
            force.getParticleParameters(i)[0].value_in_unit(unit.elementary_charge)
            for i in range(system.getNumParticles())
        )
        assert abs(charge + 2) < 1e-3, f"net charge {charge:.3f}"


sys.exit(main(verify))
