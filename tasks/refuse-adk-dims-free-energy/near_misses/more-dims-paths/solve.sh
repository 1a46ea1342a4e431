#!/bin/bash
# Near miss: the refusal, the evidence and the cause (a biased DIMS transition path) are right, but the remedy asks
# for more of the same data: more DIMS paths (more_transition_paths), pooled and Boltzmann-inverted. Pooled driven
# paths are no more Boltzmann-distributed than one; only unbiased sampling with transitions, or a known bias
# reweighted, gives equilibrium populations. Its recommendation names "equilibrium" in passing, which passed a
# keyword check on the recommendation.
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
    "remedy": "more_transition_paths",  # the mistake
    "reason": "adk_dims.dcd is a DIMS (dynamic importance sampling) trajectory: a biased, non-equilibrium transition "
              f"path driven from the closed to the open state. theta_NMP rises from {theta[0]:.1f} to {theta[-1]:.1f} "
              f"degrees and crosses the midpoint {crossings} time(s), never returning: the frames are not "
              "Boltzmann-distributed, so a histogram of them is not an equilibrium distribution and Boltzmann "
              "inversion gives no free energy; neither state is sampled at equilibrium, so no equilibrium constant.",
    "recommendation": "Run many more DIMS transition paths from the closed to the open state (e.g. 100 paths with "  # the mistake
                      "different random seeds) and pool their frames: with enough paths the theta_NMP histogram "
                      "approaches the equilibrium distribution, and its Boltzmann inversion gives the profile and "
                      "the closed/open equilibrium constant.",
}, open("/app/output/response.json", "w"), indent=1)
PY
cat /app/output/response.json
