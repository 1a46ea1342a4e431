#!/bin/bash
# Near miss: the states simplified. One dividing surface at x = 0 (bins [-inf, 0, inf]) instead of the two
# state boundaries at -0.5 and 0.5 with the region between them in no state: recrossings count as transitions.
# Reference solution: WESTPA's own tools, then the averages read from direct.h5.
set -euo pipefail
mkdir -p /app/output
cd /app/output
w_assign -W /app/inputs/west.h5 --serial --bins-from-expr '[[-inf, 0.0, inf]]' --states A:-1 B:1 -o assign.h5
w_direct all -W /app/inputs/west.h5 -a assign.h5 -o direct.h5 --disable-correl
python3 - <<'PY'
import json

import h5py

tau = json.load(open("/app/inputs/run.json"))["tau"]
with h5py.File("/app/output/direct.h5", "r") as direct, h5py.File("/app/output/assign.h5", "r") as assign:
    labels = [label.decode() for label in assign["state_labels"][:]]
    assert labels == ["A", "B"], labels
    rates, probs = direct["avg_rates"][:], direct["avg_state_probs"][:]
    n_iterations = int(assign.attrs["iter_stop"] - assign.attrs["iter_start"])
out = {"n_iterations": n_iterations}
for name, (i, j) in {"A_to_B": (0, 1), "B_to_A": (1, 0)}.items():
    r = rates[i, j]
    out[f"rate_{name}_per_tau"] = float(r["expected"])
    out[f"rate_{name}_ci_per_tau"] = [float(r["ci_lbound"]), float(r["ci_ubound"])]
    out[f"rate_{name}_per_time"] = float(r["expected"]) / tau
    out[f"mfpt_{name}"] = tau / float(r["expected"])
out["population_A"], out["population_B"] = float(probs[0]["expected"]), float(probs[1]["expected"])
json.dump(out, open("/app/output/kinetics.json", "w"), indent=1)
print(json.dumps(out, indent=1))
PY
