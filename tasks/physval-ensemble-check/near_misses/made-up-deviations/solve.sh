#!/bin/bash
# Near miss: invented numbers in the right format. physical-validation is never run: B is judged non-canonical from
# its narrow energy distributions (right), and the deviations are made up to look like the check's output.
set -euo pipefail
mkdir -p /app/output
cat > /app/output/validation.json <<'JSON'
{"A": {"deviation_sigma": 0.6, "canonical": true},
 "B": {"deviation_sigma": 6.5, "canonical": false},
 "explanation": "Protocol B fails: its potential-energy distributions at 110 K and 120 K are too narrow for the canonical ensemble, as constant-energy (NVE, microcanonical) dynamics would give. Protocol A is consistent."}
JSON
