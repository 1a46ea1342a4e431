#!/bin/bash
# Near miss: waters removed with the other heterogens.
# Reference solution: PDBFixer reads the first model and the first (highest-occupancy) alternate
# location; heterogens other than water are removed; hydrogens are added at pH 7 (waters included).
set -euo pipefail
mkdir -p /app/output
python3 - <<'EOF'
from openmm import app
from pdbfixer import PDBFixer

fixer = PDBFixer(filename="/app/inputs/raw.pdb")
fixer.removeHeterogens(keepWater=False)
fixer.findMissingResidues()
fixer.findMissingAtoms()
fixer.addMissingAtoms()
fixer.addMissingHydrogens(7.0)
with open("/app/output/prepared.pdb", "w") as handle:
    app.PDBFile.writeFile(fixer.topology, fixer.positions, handle, keepIds=True)
EOF
