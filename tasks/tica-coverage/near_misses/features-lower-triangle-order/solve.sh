#!/bin/bash
# Near miss: features in the wrong order. The 45 distances are taken in the lower triangle's row-major order
# (numpy.tril_indices: (1,0), (2,0), (2,1), ...) instead of the contract's (0,1), (0,2), ..., so the TICA
# projection mixes its weights; the grid and the coverage are computed as the reference does.
set -euo pipefail
mkdir -p /app/output
python3 - <<'EOF'
import itertools
import json

import h5py
import mdtraj
import numpy as np

with h5py.File("/app/inputs/we_export.h5", "r") as handle:
    ca = handle["ca"][:].astype(np.float64)
model = np.load("/app/inputs/tica_model.npz")
reference = np.load("/app/inputs/groundtruth_tics.npy")[:, :2]
top = mdtraj.Topology()
chain = top.add_chain()
for i in range(ca.shape[1]):
    top.add_atom("CA", mdtraj.element.carbon, top.add_residue("ALA", chain, resSeq=i + 1))
pairs = [(int(i), int(j)) for i, j in zip(*np.tril_indices(ca.shape[1], -1))]
features = mdtraj.compute_distances(mdtraj.Trajectory(ca, top), pairs).astype(np.float64)
tics = features @ model["projection"] + model["offset"]
np.save("/app/output/we_tics.npy", tics)
bins = 20
edges = [np.linspace(reference[:, d].min(), reference[:, d].max(), bins + 1) for d in range(2)]

def cells(points):
    index = [np.clip(np.searchsorted(edges[d], points[:, d], side="right") - 1, 0, bins - 1) for d in range(2)]
    inside = np.all([(points[:, d] >= edges[d][0]) & (points[:, d] <= edges[d][-1]) for d in range(2)], axis=0)
    return set((index[0] * bins + index[1])[inside].tolist())

ref, covered = cells(reference), cells(reference) & cells(tics)
json.dump({"bins": bins, "reference_cells": len(ref), "covered_cells": len(covered),
           "coverage": len(covered) / len(ref)}, open("/app/output/coverage.json", "w"), indent=2)
EOF
