#!/bin/bash
set -euo pipefail
mkdir -p /app/output
python3 - <<'PY'
import json
import mdtraj
import numpy as np

trajectory = mdtraj.load("/app/inputs/1L2Y.pdb")
simple = mdtraj.compute_dssp(trajectory, simplified=True)
full = mdtraj.compute_dssp(trajectory, simplified=False)
residues = list(trajectory.topology.residues)
with open("/app/output/dssp.csv", "w") as handle:
    handle.write("residue,resname,helix,strand,coil\n")
    for i, residue in enumerate(residues):
        column = simple[:, i]
        handle.write(f"{residue.resSeq},{residue.name},{(column == 'H').mean():.4f},{(column == 'E').mean():.4f},{(column == 'C').mean():.4f}\n")
helix = [i for i in range(len(residues)) if (simple[:, i] == "H").mean() >= 0.5]
json.dump({"model1_full_dssp": "".join(full[0]), "helix_residues": helix}, open("/app/output/summary.json", "w"), indent=1)
PY
