#!/bin/bash
# Near miss: contact probabilities and mean distances averaged over WE frames as if every walker weighed the same.
set -euo pipefail
mkdir -p /app/output
python3 - <<'EOF'
import itertools

import h5py
import mdtraj
import numpy as np

with h5py.File("/app/inputs/we_export.h5", "r") as handle:
    ca, weight = handle["ca"][:].astype(np.float64), handle["weight"][:]
weight = np.full(len(weight), 1.0 / len(weight))  # the near miss: the walker weights ignored
n = ca.shape[1]
top = mdtraj.Topology()
chain = top.add_chain()
for i in range(n):
    top.add_atom("CA", mdtraj.element.carbon, top.add_residue("ALA", chain, resSeq=i + 1))
pairs = np.array(list(itertools.combinations(range(n), 2)))
distances = mdtraj.compute_distances(mdtraj.Trajectory(ca, top), pairs)
matrix = np.zeros((n, n))
matrix[pairs[:, 0], pairs[:, 1]] = matrix[pairs[:, 1], pairs[:, 0]] = weight @ distances
np.save("/app/output/distance_map.npy", matrix)
probability = weight @ (distances < 0.8)
with open("/app/output/contacts.csv", "w") as handle:
    handle.write("i,j,probability\n")
    for (i, j), p in zip(pairs, probability):
        if j - i >= 3 and p >= 0.5:
            handle.write(f"{i},{j},{p:.8f}\n")
EOF
