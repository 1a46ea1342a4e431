#!/bin/bash
# Near miss: mdtraj's compute_phi (residues 2-20) and compute_psi (residues 1-19) zipped by column, so each residue's
# phi is paired with the psi of the residue before it.
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
phi = np.degrees(phi[:, : len(residues)])  # residues 2-19: right
psi = np.degrees(psi[:, : len(residues)])  # residues 1-18: the near miss, one residue behind
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
