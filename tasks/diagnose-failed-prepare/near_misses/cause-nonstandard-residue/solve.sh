#!/bin/bash
set -euo pipefail
mkdir -p /app/output
python3 - <<'EOF'
import json
import re

from openmm import app

log = open("/app/inputs/prepare.log").read()
name = re.search(r"No template found for residue \d+ \((\w+)\)", log).group(1)
index = int(re.search(r"No template found for residue (\d+)", log).group(1))
pdb = app.PDBFile("/app/inputs/input.pdb")
residue = list(pdb.topology.residues())[index]
json.dump({"cause": "nonstandard_residue", "residue": {"name": name, "number": int(residue.id)}},
          open("/app/output/diagnosis.json", "w"), indent=2)
forcefield = app.ForceField("amber14-all.xml")
modeller = app.Modeller(pdb.topology, pdb.positions)
modeller.addHydrogens(forcefield, pH=7.0)
with open("/app/output/fixed.pdb", "w") as handle:
    app.PDBFile.writeFile(modeller.topology, modeller.positions, handle, keepIds=True)
EOF
