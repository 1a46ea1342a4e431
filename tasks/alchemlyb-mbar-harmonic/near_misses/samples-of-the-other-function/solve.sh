#!/bin/bash
# Near miss: MBAR and TI on equilibrium_detection's subsample (the function the answer states), but
# samples_per_window counted from statistical_inefficiency's subsample in a separate pass.
set -euo pipefail
mkdir -p /app/output
python3 - <<'PY'
import glob
import json

import pandas as pd
from alchemlyb.estimators import MBAR, TI
from alchemlyb.preprocessing import equilibrium_detection, statistical_inefficiency

u_nk, dhdl, kept = [], [], []
for path in sorted(glob.glob("/app/inputs/windows/lambda_*.csv.gz")):
    frame = pd.read_csv(path).rename(columns={"time_ps": "time", "fep_lambda": "fep-lambda"})
    frame = frame.set_index(["time", "fep-lambda"])
    u = frame.drop(columns="dHdl")
    u.columns = [float(c) for c in u.columns]
    lam = float(frame.index.get_level_values("fep-lambda")[0])
    u_nk.append(equilibrium_detection(u, u[lam]))
    dhdl.append(equilibrium_detection(frame[["dHdl"]].rename(columns={"dHdl": "fep"}), frame["dHdl"]))
    kept.append(len(statistical_inefficiency(u, u[lam])))
mbar = MBAR().fit(pd.concat(u_nk))
ti = TI().fit(pd.concat(dhdl))
result = {"mbar_delta_f_kt": float(mbar.delta_f_.iloc[0, -1]), "mbar_error_kt": float(mbar.d_delta_f_.iloc[0, -1]),
          "ti_delta_f_kt": float(ti.delta_f_.iloc[0, -1]), "ti_error_kt": float(ti.d_delta_f_.iloc[0, -1]),
          "samples_per_window": kept, "decorrelation": "equilibrium_detection"}
json.dump(result, open("/app/output/free_energy.json", "w"), indent=1)
print(result)
PY
