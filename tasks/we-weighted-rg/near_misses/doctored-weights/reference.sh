#!/bin/bash
# The reference solution, unchanged, run on the doctored input.
set -euo pipefail
mkdir -p /app/output
python3 - <<'EOF'
import json

import h5py
import mdtraj
import numpy as np

with h5py.File("/app/inputs/we_export.h5", "r") as handle:
    ca, weight = handle["ca"][:].astype(np.float64), handle["weight"][:]
top = mdtraj.Topology()
chain = top.add_chain()
for i in range(ca.shape[1]):
    top.add_atom("CA", mdtraj.element.carbon, top.add_residue("ALA", chain, resSeq=i + 1))
rg = mdtraj.compute_rg(mdtraj.Trajectory(ca, top))
weight = weight / weight.sum()
mean = float(np.sum(weight * rg))
with open("/app/output/rg.csv", "w") as handle:
    handle.write("frame,rg_nm\n" + "".join(f"{i},{value:.8f}\n" for i, value in enumerate(rg)))
json.dump({"n_frames": len(rg), "weighted_mean_rg_nm": mean,
           "weighted_std_rg_nm": float(np.sqrt(np.sum(weight * (rg - mean) ** 2))),
           "unweighted_mean_rg_nm": float(rg.mean())}, open("/app/output/summary.json", "w"), indent=2)
EOF
