#!/bin/bash
# Reference: metal units are right for the EAM file; the timestep and the thermostat's damping time were written in
# fs (real units' time) and the GPa factor assumes the pressure in atm (real units). Thermo every 100 steps of 1 fs
# and 10000 steps are right once the timestep is 0.001 ps.
set -euo pipefail
mkdir -p /app/output && cd /app/output
sed -e 's/^timestep        1\.0$/timestep        0.001/' \
    -e 's/^\(fix             1 all nvt temp 300\.0 300\.0\) 100\.0$/\1 0.1/' \
    -e 's/^\(variable        pgpa equal press\)\*1\.01325e-4$/\1*1.0e-4/' /app/inputs/in.cu > in.cu
lmp -in in.cu -log log.lammps > /dev/null
python3 - <<'PY'
import json
lines = open("log.lammps").read().splitlines()
head = max(i for i, line in enumerate(lines) if line.split()[:1] == ["Step"])
columns = lines[head].split()
rows = []
for line in lines[head + 1:]:
    if line.startswith("Loop time"):
        break
    rows.append([float(x) for x in line.split()])
mean = {c: sum(r[k] for r in rows) / len(rows) for k, c in enumerate(columns)}
json.dump({
    "mean_temperature_k": mean["Temp"],
    "mean_pressure_bar": mean["Press"],
    "mean_pressure_gpa": mean["Press"] * 1e-4,
    "steps": int(rows[-1][0] - rows[0][0]),
    "wrong_lines": [
        {"line": 14, "setting": "timestep", "written_in": "fs"},
        {"line": 15, "setting": "thermostat_damping", "written_in": "fs"},
        {"line": 16, "setting": "pressure_conversion", "written_in": "atm"},
    ],
}, open("result.json", "w"), indent=1)
PY
