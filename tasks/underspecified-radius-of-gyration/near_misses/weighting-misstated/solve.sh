#!/bin/bash
# Near miss: the stated convention is not the one computed. MDAnalysis's radius_of_gyration weights by mass;
# the report states an unweighted (geometric) radius of gyration over every atom.
set -euo pipefail
mkdir -p /app/output
python3 - <<'PY'
import json
import numpy as np
import MDAnalysis as mda

u = mda.Universe("/app/inputs/topology.pdb", "/app/inputs/trajectory.dcd")
atoms = u.select_atoms("protein")
first = len(u.trajectory) // 5  # discard the first 20 % as equilibration
rg = np.array([atoms.radius_of_gyration() for ts in u.trajectory[first:]]) / 10.0  # MDAnalysis: mass-weighted, angstrom
json.dump({"mean_rg_nm": float(rg.mean()), "std_rg_nm": float(rg.std()), "selection": "all", "mass_weighted": False,
           "first_frame": first,
           "assumptions": ["Every atom, hydrogens included: the peptide as simulated.",
                           "Geometric (unweighted): every atom counts equally.",
                           f"The first 20 % of the frames ({first}) discarded as equilibration; the rest used with equal weight."]},
          open("/app/output/rg.json", "w"), indent=1)
PY
