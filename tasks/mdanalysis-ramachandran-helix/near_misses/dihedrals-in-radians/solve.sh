#!/bin/bash
# Near miss: mdtraj's dihedrals (radians) used as they come: written as degrees and tested against the degree box.
set -euo pipefail
mkdir -p /app/output
python3 - <<'PY'
import json

import mdtraj
import numpy as np

trajectory = mdtraj.load("/app/inputs/trpcage.xtc", top="/app/inputs/trpcage.pdb")
_, phi = mdtraj.compute_phi(trajectory)
_, psi = mdtraj.compute_psi(trajectory)
residues = list(trajectory.topology.residues)[1:-1]
phi = phi[:, : len(residues)]  # the near miss: radians
psi = psi[:, 1 : len(residues) + 1]  # residues 2-19, still radians
alpha = (phi >= -100) & (phi <= -30) & (psi >= -80) & (psi <= -10)
fraction = alpha.mean(axis=0)
with open("/app/output/dihedrals.csv", "w") as handle:
    handle.write("frame,residue,phi,psi\n")
    for frame in range(trajectory.n_frames):
        for k, residue in enumerate(residues):
            handle.write(f"{frame},{residue.resSeq},{phi[frame, k]:.3f},{psi[frame, k]:.3f}\n")
with open("/app/output/alpha.csv", "w") as handle:
    handle.write("residue,resname,alpha_fraction\n")
    for k, residue in enumerate(residues):
        handle.write(f"{residue.resSeq},{residue.name},{fraction[k]:.4f}\n")
json.dump({"n_frames": trajectory.n_frames, "mean_alpha_fraction": float(alpha.mean()),
           "helical_residues": [r.resSeq for r, f in zip(residues, fraction) if f >= 0.5]},
          open("/app/output/summary.json", "w"), indent=1)
PY
