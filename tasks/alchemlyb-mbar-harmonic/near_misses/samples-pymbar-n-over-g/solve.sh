#!/bin/bash
# Near miss: the estimates are alchemlyb's on statistical_inefficiency's subsample, but samples_per_window is
# pymbar's N/g (the window's length over its statistical inefficiency), not the samples the function kept.
set -euo pipefail
mkdir -p /app/output
python3 - <<'PY'
import glob
import json

import pandas as pd
from alchemlyb.estimators import MBAR, TI
from alchemlyb.preprocessing import statistical_inefficiency
from pymbar import timeseries

u_nk, dhdl, kept = [], [], []
for path in sorted(glob.glob("/app/inputs/windows/lambda_*.csv.gz")):
    frame = pd.read_csv(path).rename(columns={"time_ps": "time", "fep_lambda": "fep-lambda"})
    frame = frame.set_index(["time", "fep-lambda"])
    u = frame.drop(columns="dHdl")
    u.columns = [float(c) for c in u.columns]
    lam = float(frame.index.get_level_values("fep-lambda")[0])
    u_nk.append(statistical_inefficiency(u, u[lam]))
    dhdl.append(statistical_inefficiency(frame[["dHdl"]].rename(columns={"dHdl": "fep"}), frame["dHdl"]))
    kept.append(round(len(u) / timeseries.statisticalInefficiency(u[lam].to_numpy())))
mbar = MBAR().fit(pd.concat(u_nk))
ti = TI().fit(pd.concat(dhdl))
result = {"mbar_delta_f_kt": float(mbar.delta_f_.iloc[0, -1]), "mbar_error_kt": float(mbar.d_delta_f_.iloc[0, -1]),
          "ti_delta_f_kt": float(ti.delta_f_.iloc[0, -1]), "ti_error_kt": float(ti.d_delta_f_.iloc[0, -1]),
          "samples_per_window": kept, "decorrelation": "statistical_inefficiency"}
json.dump(result, open("/app/output/free_energy.json", "w"), indent=1)
print(result)
PY
