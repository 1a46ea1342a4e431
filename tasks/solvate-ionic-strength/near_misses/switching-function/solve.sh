#!/bin/bash
set -euo pipefail
mkdir -p /app/output
python3 - <<'EOF'
import json

import openmm
from openmm import app, unit

pdb = app.PDBFile("/app/inputs/peptide.pdb")
forcefield = app.ForceField("amber14-all.xml", "amber14/tip3pfb.xml")
modeller = app.Modeller(pdb.topology, pdb.positions)
modeller.addSolvent(forcefield, model="tip3p", padding=1.0 * unit.nanometer, ionicStrength=0.1 * unit.molar,
                    positiveIon="Na+", negativeIon="Cl-", neutralize=True)
system = forcefield.createSystem(modeller.topology, nonbondedMethod=app.PME, nonbondedCutoff=1.0 * unit.nanometer,
                                 constraints=app.HBonds, switchDistance=0.9 * unit.nanometer)
with open("/app/output/system.xml", "w") as handle:
    handle.write(openmm.XmlSerializer.serialize(system))
with open("/app/output/solvated.pdb", "w") as handle:
    app.PDBFile.writeFile(modeller.topology, modeller.positions, handle)
names = [r.name for r in modeller.topology.residues()]
box = modeller.topology.getPeriodicBoxVectors()
json.dump({"waters": names.count("HOH"), "sodium": names.count("NA"), "chloride": names.count("CL"),
           "box_nm": [box[i][i].value_in_unit(unit.nanometer) for i in range(3)]}, open("/app/output/build.json", "w"))
EOF
