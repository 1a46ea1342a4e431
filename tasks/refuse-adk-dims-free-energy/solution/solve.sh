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
json.dump({
    "status": "cannot_estimate",
    "theta_nmp_first_deg": float(theta[0]), "theta_nmp_last_deg": float(theta[-1]),
    "n_midpoint_crossings": crossings,
    "cause": "biased_transition_path",
    "remedy": "equilibrium_sampling",
    "reason": "adk_dims.dcd is a DIMS (dynamic importance sampling) trajectory: a biased, non-equilibrium transition "
              f"path driven from the closed to the open state. theta_NMP rises from {theta[0]:.1f} to {theta[-1]:.1f} "
              f"degrees and crosses the midpoint {crossings} time(s), never returning: the frames are not "
              "Boltzmann-distributed, so a histogram of them is not an equilibrium distribution and Boltzmann "
              "inversion gives no free energy; neither state is sampled at equilibrium, so no equilibrium constant.",
    "recommendation": "Unbiased equilibrium sampling with many closed<->open transitions (long MD or many "
                      "trajectories with a Markov state model), or enhanced sampling along theta_NMP with a "
                      "known bias that can be reweighted (umbrella sampling with WHAM/MBAR, metadynamics).",
}, open("/app/output/response.json", "w"), indent=1)
PY
cat /app/output/response.json
