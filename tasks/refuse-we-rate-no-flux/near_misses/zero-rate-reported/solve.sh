#!/bin/bash
# Near miss: no flux was observed, and a rate of 0 with error 0 is reported as if measured.
set -euo pipefail
mkdir -p /app/output
python3 - <<'PY'
import json

import h5py
import numpy as np

with h5py.File("/app/inputs/west.h5", "r") as h5:
    groups = [h5["iterations"][n] for n in sorted(h5["iterations"])]
    recycled = sum(float(g["seg_index"]["weight"][g["seg_index"]["endpoint_type"] == 3].sum()) for g in groups)
    min_pcoord = min(float(g["pcoord"][:].min()) for g in groups)
    n = len(groups)
status = "rate"  # the near miss: zero flux reported as a zero rate
json.dump({"status": status, "rate_per_ps": 0.0, "rate_stderr_per_ps": 0.0, "n_iterations": n,
           "recycled_weight_total": recycled, "min_pcoord": min_pcoord,
           "cause": None, "remedy": "extend_sampling",  # status "rate": no cause given
           "reason": f"In {n} iterations no segment reached the target state (pcoord < 1.0): the recycled weight is "
                     f"{recycled} and the smallest progress coordinate reached is {min_pcoord:.2f}, on the unfolded side of "
                     "the barrier. With zero observed flux there is no steady state to estimate a rate from; a rate of zero "
                     "or an upper bound presented as a rate would be wrong.",
           "recommendation": "Continue the run (more iterations) and/or refine the binning across the barrier region "
                             "(pcoord 1-6) with more walkers per bin until flux into the target is observed and "
                             "reaches a steady state; then compute the rate from the steady-state iterations."},
          open("/app/output/response.json", "w"), indent=1)
PY
