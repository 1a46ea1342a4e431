#!/bin/bash
# Near miss: fix temp/berendsen left on in the production. Reference: the production of /app/inputs/in.lj ran with three thermostat misuses: fix nve and fix nvt both
# integrating the atoms (fix 1 left on from the equilibration), the equilibration's Berendsen thermostat (fix 2) left
# on, and a Nose-Hoover damping of one timestep (0.005 tau). Both equilibration fixes are removed before the
# production and Tdamp set to 100 timesteps (0.5 tau); everything else is the input's.
set -euo pipefail
mkdir -p /app/output && cd /app/output
sed -e 's/^# production: Nose-Hoover NVT, 200 tau$/unfix           1\n&/' \
    -e 's/^\(fix             3 all nvt temp 1\.5 1\.5\) 0\.005$/\1 0.5/' /app/inputs/in.lj > in.lj
lmp -in in.lj -log log.lammps -screen none
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
temperature = np.array(production)[1:, header.index("Temp")]  # after the first row (the equilibration's last state)
n_atoms = 256
json.dump({"mean_temperature": float(temperature.mean()),
           "temperature_variance_ratio": float(temperature.var() / temperature.mean() ** 2 / (2 / (3 * n_atoms))),
           "causes": ["double_integration", "berendsen_in_production", "tdamp_too_short"]},
          open("result.json", "w"), indent=1)
PY
