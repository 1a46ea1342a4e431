#!/bin/bash
# Near miss: pressure_units left out of the causes.
# Reference: the production of /app/inputs/in.argon ran with three barostat misuses: fix nve (fix 1, left on from the
# equilibration) integrating the atoms beside fix npt, a Nose-Hoover Pdamp of 20 fs (five timesteps, far shorter than
# Tdamp: violent box oscillations), and a target of 500 written for 500 bar where `real` units take atm
# (500 bar = 493.462 atm). Fix 1 is removed before the production, Pdamp set to 2000 fs (500 timesteps) and the
# target written in atm; everything else is the input's.
set -euo pipefail
mkdir -p /app/output && cd /app/output
sed -e 's/^unfix           2$/&\nunfix           1/' \
    -e 's/iso 500\.0 500\.0 20\.0$/iso 493.462 493.462 2000.0/' /app/inputs/in.argon > in.argon
lmp -in in.argon -log log.lammps -screen none
python3 - <<'PY'
import json

import numpy as np

blocks, rows = [], None
for line in open("log.lammps"):
    words = line.split()
    if words[:1] == ["Step"]:
        header, rows = words, []
        blocks.append((header, rows))
    elif rows is not None and line.startswith("Loop time"):
        rows = None
    elif rows is not None:
        try:
            rows.append([float(w) for w in words])
        except ValueError:
            pass
header, production = blocks[-1]
production = np.array(production)[1:]  # after the first row (the equilibration's last state)
json.dump({"mean_volume": float(production[:, header.index("Volume")].mean()),
           "mean_pressure": float(production[:, header.index("Press")].mean()),
           "causes": ["double_integration", "pdamp_too_short"]},
          open("result.json", "w"), indent=1)
PY
