#!/bin/bash
# Near miss: MDAnalysis's angstrom left unconverted under the *_nm keys.
set -euo pipefail
mkdir -p /app/output
python3 - <<'PY'
import json
import numpy as np
import MDAnalysis as mda

u = mda.Universe("/app/inputs/topology.pdb", "/app/inputs/trajectory.dcd")
atoms = u.select_atoms("protein and not element H")
first = len(u.trajectory) // 5  # discard the first 20 % as equilibration
rg = np.array([atoms.radius_of_gyration() for ts in u.trajectory[first:]])  # MDAnalysis: mass-weighted, angstrom
json.dump({"mean_rg_nm": float(rg.mean()), "std_rg_nm": float(rg.std()), "selection": "heavy", "mass_weighted": True,
           "first_frame": first,
           "assumptions": ["Heavy atoms only: hydrogen positions add noise and are often absent from structures it is compared with.",
                           "Mass-weighted, the textbook definition (MDAnalysis's radius_of_gyration).",
                           f"The first 20 % of the frames ({first}) discarded as equilibration; the rest used with equal weight."]},
          open("/app/output/rg.json", "w"), indent=1)
PY
