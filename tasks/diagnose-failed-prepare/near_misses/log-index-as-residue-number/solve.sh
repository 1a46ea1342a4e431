#!/bin/bash
# Near miss: the wrong numbering. The residue number is copied from OpenMM's error message, which gives the
# residue's 0-based index in the topology (0), not its residue number in input.pdb (1).
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
json.dump({"cause": "missing_hydrogens", "residue": {"name": name, "number": index}},
          open("/app/output/diagnosis.json", "w"), indent=2)
forcefield = app.ForceField("amber14-all.xml")
modeller = app.Modeller(pdb.topology, pdb.positions)
modeller.addHydrogens(forcefield, pH=7.0)
with open("/app/output/fixed.pdb", "w") as handle:
    app.PDBFile.writeFile(modeller.topology, modeller.positions, handle, keepIds=True)
EOF
