#!/bin/bash
# Reference: MDAnalysis on the AdK transition: CA RMSD (optimal superposition) to both crystal structures, the
# Beckstein et al. (2009) NMP-CORE and LID-CORE angles, radius of gyration, CA PCA (aligned), the crossing frame
# and which domain moves first.
set -euo pipefail
mkdir -p /app/output
python3 -W ignore - <<'PY'
import json
import numpy as np
import MDAnalysis as mda
from MDAnalysis.analysis import pca, rms
from MDAnalysisTests.datafiles import DCD, PDB_closed, PDB_small, PSF

u = mda.Universe(PSF, DCD)
closed, opened = mda.Universe(PDB_closed), mda.Universe(PDB_small)
rmsd_closed = rms.RMSD(u, closed, select="name CA").run().results.rmsd[:, 2]
rmsd_open = rms.RMSD(u, opened, select="name CA").run().results.rmsd[:, 2]

ATOMS = " and (backbone or name CB)"
def angle(a, b, c):
    A, B, C = (u.select_atoms(s + ATOMS).center_of_geometry() for s in (a, b, c))
    ba, bc = A - B, C - B
    return np.degrees(np.arccos(np.dot(ba, bc) / np.linalg.norm(ba) / np.linalg.norm(bc)))

nmp, lid, rg = [], [], []
for ts in u.trajectory:
    nmp.append(angle("resid 35:55", "resid 90:100", "resid 115:125"))
    lid.append(angle("resid 125:153", "resid 115:125", "resid 179:185"))
    rg.append(u.atoms.radius_of_gyration())
nmp, lid, rg = map(np.array, (nmp, lid, rg))

p = pca.PCA(u, select="name CA", align=True).run()
proj = p.transform(u.select_atoms("name CA"), n_components=1)[:, 0]
if proj[-1] < proj[0]:
    proj = -proj

with open("/app/output/transition.csv", "w") as f:
    f.write("frame,rmsd_closed_A,rmsd_open_A,theta_nmp_deg,theta_lid_deg,rg_A,pc1\n")
    for i in range(len(nmp)):
        f.write(f"{i},{rmsd_closed[i]:.4f},{rmsd_open[i]:.4f},{nmp[i]:.4f},{lid[i]:.4f},{rg[i]:.4f},{proj[i]:.4f}\n")

def halfway(x):
    mid = (x[0] + x[-1]) / 2
    return int(np.argmax(x >= mid)) if x[-1] > x[0] else int(np.argmax(x <= mid))

half_nmp, half_lid = halfway(nmp), halfway(lid)
json.dump({
    "n_frames": len(nmp),
    "crossing_frame": int(np.argmax(rmsd_open < rmsd_closed)),
    "pc1_variance_fraction": float(p.results.variance[0] / p.results.variance.sum()),
    "r_pc1_theta_nmp": float(np.corrcoef(proj, nmp)[0, 1]),
    "r_pc1_theta_lid": float(np.corrcoef(proj, lid)[0, 1]),
    "halfway_frame_nmp": half_nmp, "halfway_frame_lid": half_lid,
    "first_domain": "LID" if half_lid < half_nmp else "NMP",
}, open("/app/output/summary.json", "w"), indent=1)
PY
cat /app/output/summary.json
