#!/bin/bash
# Near miss: an ad-hoc parse where the tool would have chosen right. Model 1 is cut out and the alternate
# locations are resolved by hand, the last one read winning (B, occupancy 0.40, over A, 0.60); then PDBFixer as
# the reference does.
set -euo pipefail
mkdir -p /app/output /tmp/prep
python3 - <<'PY'
atoms, order, other = {}, [], []
for line in open("/app/inputs/raw.pdb"):
    if line.startswith("ENDMDL"):
        break
    if line.startswith(("ATOM", "HETATM")):
        key = (line[17:27], line[12:16])
        if key not in atoms:
            order.append(key)
        atoms[key] = line[:16] + " " + line[17:]  # a later alternate location replaces an earlier one
    elif line.startswith(("CRYST1", "SEQRES")):
        other.append(line)
open("/tmp/prep/model1.pdb", "w").write("".join(other) + "".join(atoms[k] for k in order) + "END\n")
PY
python3 - <<'EOF'
from openmm import app
from pdbfixer import PDBFixer

fixer = PDBFixer(filename="/tmp/prep/model1.pdb")
fixer.removeHeterogens(keepWater=True)
fixer.findMissingResidues()
fixer.findMissingAtoms()
fixer.addMissingAtoms()
fixer.addMissingHydrogens(7.0)
with open("/app/output/prepared.pdb", "w") as handle:
    app.PDBFile.writeFile(fixer.topology, fixer.positions, handle, keepIds=True)
EOF
