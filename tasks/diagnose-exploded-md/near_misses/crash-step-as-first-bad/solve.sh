#!/bin/bash
# Near miss: the right cause and fix, the wrong step. The first bad step is taken as the last report before the
# NaN exception (where the energies are largest), not the first reported step above 1000 K the contract defines.
set -euo pipefail
mkdir -p /app/output
python3 - <<'EOF'
import csv
import json
import math

rows = list(csv.reader(l for l in open("/app/inputs/md.log") if not l.startswith("#")))
bad = int(rows[-1][0])  # the last report before "Particle coordinate is NaN": where the run blew up
json.dump({"first_bad_step": bad, "cause": "timestep_too_large",
           "fix": {"timestep_fs": 2.0, "constraints": "HBonds", "hydrogen_mass_amu": None}},
          open("/app/output/diagnosis.json", "w"), indent=2)
EOF
