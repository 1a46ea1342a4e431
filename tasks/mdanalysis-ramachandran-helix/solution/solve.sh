#!/bin/bash
# Reference: MDAnalysis's Ramachandran analysis, then the stated alpha-helical box per residue.
set -euo pipefail
mkdir -p /app/output
python3 - <<'PY'
import json
import warnings

import MDAnalysis as mda
import numpy as np
from MDAnalysis.analysis.dihedrals import Ramachandran

PHI_RANGE = (-100.0, -30.0)  # degrees, bounds included
PSI_RANGE = (-80.0, -10.0)
HELICAL = 0.5  # alpha fraction at or above which a residue is listed

universe = mda.Universe("/app/inputs/trpcage.pdb", "/app/inputs/trpcage.xtc")
protein = universe.select_atoms("protein")
residues = protein.residues[1:-1]  # the first has no phi, the last no psi
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    rama = Ramachandran(residues.atoms).run()
angles = rama.results.angles  # (frames, residues, 2): phi, psi in degrees
phi, psi = angles[..., 0], angles[..., 1]
alpha = (phi >= PHI_RANGE[0]) & (phi <= PHI_RANGE[1]) & (psi >= PSI_RANGE[0]) & (psi <= PSI_RANGE[1])
fraction = alpha.mean(axis=0)
with open("/app/output/dihedrals.csv", "w") as handle:
    handle.write("frame,residue,phi,psi\n")
    for frame in range(len(angles)):
        for k, residue in enumerate(residues):
            handle.write(f"{frame},{residue.resid},{phi[frame, k]:.3f},{psi[frame, k]:.3f}\n")
with open("/app/output/alpha.csv", "w") as handle:
    handle.write("residue,resname,alpha_fraction\n")
    for k, residue in enumerate(residues):
        handle.write(f"{residue.resid},{residue.resname},{fraction[k]:.4f}\n")
summary = {
    "n_frames": len(angles),
    "mean_alpha_fraction": float(alpha.mean()),
    "helical_residues": [int(r.resid) for r, f in zip(residues, fraction) if f >= HELICAL],
}
json.dump(summary, open("/app/output/summary.json", "w"), indent=1)
PY
