#!/bin/bash
# Near miss: coverage normalized by the WE cells, not by the reference cells.
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
pairs = list(itertools.combinations(range(ca.shape[1]), 2))
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
           "coverage": len(covered) / len(cells(tics))}, open("/app/output/coverage.json", "w"), indent=2)
EOF
