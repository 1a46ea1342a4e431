#!/bin/bash
# Reference solution: WESTPA's w_pdist, then the averaged profile from pdist.h5.
set -euo pipefail
mkdir -p /app/output
cd /app/output
w_pdist -W /app/inputs/west.h5 --serial -b '[[-2.05 + 0.1*i for i in range(42)]]' --first-iter 42 --last-iter 80 -o pdist.h5
python3 - <<'PY'
import json

import h5py
import numpy as np

with h5py.File("/app/output/pdist.h5", "r") as pdist:
    histograms, x = pdist["histograms"][...], pdist["midpoints_0"][...]
p = histograms.mean(axis=0)
p = p / p.sum()
with np.errstate(divide="ignore"):
    free = -np.log(p)
free -= free[np.isfinite(free)].min()
with open("/app/output/profile.csv", "w") as handle:
    handle.write("x,probability,free_energy_kt\n" + "".join(f"{a:.4f},{b:.10g},{c:.10g}\n" for a, b, c in zip(x, p, free)))
summary = {"barrier_kt": float(free[np.argmin(abs(x))]), "minimum_x": float(x[np.argmin(free)]),
           "probability_x_below_0": float(p[x < -1e-9].sum()), "iterations": [41, 80]}
json.dump(summary, open("/app/output/summary.json", "w"), indent=1)
print(json.dumps(summary))
PY
