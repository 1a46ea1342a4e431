#!/bin/bash
# Near miss: a keyword slip. The evidence and the remedy are right, but the cause given is that the flux "never settled"
# into a steady state (flux_not_steady), as if walkers had reached the target: none ever did. Its reason names "never"
# and the closest approach, which passed a keyword check on the reason.
set -euo pipefail
mkdir -p /app/output
python3 - <<'PY'
import json

import h5py

with h5py.File("/app/inputs/west.h5", "r") as h5:
    groups = [h5["iterations"][n] for n in sorted(h5["iterations"])]
    recycled = sum(float(g["seg_index"]["weight"][g["seg_index"]["endpoint_type"] == 3].sum()) for g in groups)
    min_pcoord = min(float(g["pcoord"][:].min()) for g in groups)
    n = len(groups)
json.dump({"status": "insufficient_data", "rate_per_ps": None, "rate_stderr_per_ps": None, "n_iterations": n,
           "recycled_weight_total": recycled, "min_pcoord": min_pcoord,
           "cause": "flux_not_steady", "remedy": "extend_sampling",
           "reason": f"In {n} iterations the flux into the target never settled into a steady state: the walkers drift "
                     f"towards the folded state (closest progress coordinate {min_pcoord:.2f}) and the recycled weight "
                     f"({recycled}) has not levelled off, so a mean over a steady-state window would be biased.",
           "recommendation": "Continue the run (more iterations) until the flux into the target is steady, then compute "
                             "the rate from the steady-state iterations."},
          open("/app/output/response.json", "w"), indent=1)
PY
