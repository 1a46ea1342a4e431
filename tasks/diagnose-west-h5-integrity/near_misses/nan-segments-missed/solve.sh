#!/bin/bash
# Near miss: only the first pcoord point of each segment is checked for NaN.
set -euo pipefail
mkdir -p /app/output
python3 - <<'PY'
import json
import h5py
import numpy as np

with h5py.File("/app/inputs/west.h5", "r") as h5:
    names = sorted(h5["iterations"])
    totals, counts, nonfinite = [], [], []
    for name in names:
        group = h5["iterations"][name]
        iteration = int(name.split("_")[1])
        totals.append(float(group["seg_index"]["weight"].sum()))
        counts.append(len(group["seg_index"]))
        bad = ~np.isfinite(group["pcoord"][:, 0, :]).all(axis=1)
        nonfinite += [{"iteration": iteration, "segment": int(k)} for k in np.nonzero(bad)[0]]
    norm = h5["summary"]["norm"][: len(names)]
result = {"n_iterations": len(names), "segments_per_iteration": counts,
          "weight_errors": [{"iteration": int(n.split("_")[1]), "total_weight": t} for n, t in zip(names, totals) if abs(t - 1) > 1e-6],
          "nonfinite_pcoord": nonfinite, "summary_consistent": bool(np.allclose(norm, totals, atol=1e-6, rtol=0))}
json.dump(result, open("/app/output/integrity.json", "w"), indent=1)
PY
