#!/bin/bash
# Near miss: plausible numbers in the contracted format, nothing computed (the exact answer is 4.16 kT; the
# counts and errors look like a decorrelated run's).
set -euo pipefail
mkdir -p /app/output
cat > /app/output/free_energy.json <<'JSON'
{"mbar_delta_f_kt": 4.2, "mbar_error_kt": 0.15, "ti_delta_f_kt": 4.4, "ti_error_kt": 0.16,
 "samples_per_window": [75, 75, 75, 75, 75, 75, 75, 75, 75, 75, 75], "decorrelation": "statistical_inefficiency"}
JSON
