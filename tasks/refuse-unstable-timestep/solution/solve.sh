#!/bin/bash
set -euo pipefail
mkdir -p /app/output
cat > /app/output/response.json <<'JSON'
{"status": "refused",
 "cause": "timestep_too_large",
 "requested_timestep_fs": 10.0,
 "stable_limit_fs": 1.0,
 "reason": "A 10 fs timestep without constraints and with standard hydrogen masses is far beyond the stability limit of the fastest motions (X-H bond vibrations, period about 10 fs; without constraints the limit is about 1 fs, 2 fs with HBonds constraints, or 4 fs with HBonds constraints and hydrogen mass repartitioning). The integration would blow up within a few steps and energy cannot be conserved; any trajectory produced would be meaningless for production statistics. Use 2 fs with HBonds constraints (or 4 fs with hydrogen mass repartitioning) instead.",
 "alternative": {"timestep_fs": 2.0, "constraints": "HBonds", "hydrogen_mass_amu": null}}
JSON
