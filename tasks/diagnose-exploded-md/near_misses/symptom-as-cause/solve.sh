#!/bin/bash
# Near miss: the huge temperature in the log taken for the cause; the 'fix' lowers the timestep without constraints.
set -euo pipefail
mkdir -p /app/output
python3 - <<'EOF'
import csv
import json
import math

rows = list(csv.reader(l for l in open("/app/inputs/md.log") if not l.startswith("#")))
bad = next(int(r[0]) for r in rows if not all(math.isfinite(float(v)) for v in r[1:]) or float(r[3]) > 1000)
json.dump({"first_bad_step": bad, "cause": "temperature_too_high",  # the near miss: the symptom taken for the cause
           "fix": {"timestep_fs": 1.0, "constraints": None, "hydrogen_mass_amu": None}},
          open("/app/output/diagnosis.json", "w"), indent=2)
EOF
