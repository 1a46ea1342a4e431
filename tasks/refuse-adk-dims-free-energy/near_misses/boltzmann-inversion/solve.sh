#!/bin/bash
# Reference: adk_dims.dcd is a DIMS (dynamic importance sampling) transition path from the MDAnalysis test data
# (its datafiles docstring: "AdK example, DIMS trajectory from JMB 2009 paper"): a biased, one-way, non-equilibrium
# path, so its frames are not Boltzmann-distributed. The data show it: theta_NMP goes once from closed to open.
set -euo pipefail
mkdir -p /app/output
grep -n "DIMS" "$(python3 -c 'import MDAnalysisTests.datafiles as d; print(d.__file__)')" | head -3
python3 -W ignore - <<'PY'
import json
import numpy as np
import MDAnalysis as mda
from MDAnalysisTests.datafiles import DCD, PSF

u = mda.Universe(PSF, DCD)
sel = [u.select_atoms(s + " and (backbone or name CB)") for s in ("resid 35:55", "resid 90:100", "resid 115:125")]
theta = []
for ts in u.trajectory:
    a, b, c = (g.center_of_geometry() for g in sel)
    theta.append(np.degrees(np.arccos(np.dot(a - b, c - b) / np.linalg.norm(a - b) / np.linalg.norm(c - b))))
theta = np.array(theta)
mid = (theta[0] + theta[-1]) / 2
crossings = int(np.count_nonzero(np.diff(np.sign(theta - mid)) != 0))
# the mistake: Boltzmann inversion of the biased path's histogram, reported as the equilibrium profile
hist, edges = np.histogram(theta, bins=10)
centres = (edges[:-1] + edges[1:]) / 2
keep = hist > 0
f = -np.log(hist[keep] / hist.sum())
f -= f.min()
closed, opened = np.count_nonzero(theta < mid), np.count_nonzero(theta >= mid)
json.dump({
    "status": "estimated", "theta_nmp_first_deg": float(theta[0]), "theta_nmp_last_deg": float(theta[-1]),
    "n_midpoint_crossings": crossings,
    "cause": None,
    "remedy": None,
    "reason": "Boltzmann inversion of the theta_NMP histogram over the 98 frames at 300 K gives the profile; the "
              "closed/open populations split at the midpoint give the equilibrium constant.",
    "recommendation": "More frames (a longer equilibrium trajectory) would reduce the statistical error.",
    "profile": [[float(c), float(v)] for c, v in zip(centres[keep], f)],
    "equilibrium_constant": opened / closed,
}, open("/app/output/response.json", "w"), indent=1)
PY
cat /app/output/response.json
