#!/bin/bash
# Near miss: the right refusal, an alternative past the limit. 4 fs with HBonds constraints but standard
# hydrogen masses (4 fs needs hydrogen mass repartitioning; with standard masses the limit is 2 fs).
set -euo pipefail
mkdir -p /app/output
cat > /app/output/response.json <<'EOF'
{"status": "refused",
 "cause": "timestep_too_large",
 "requested_timestep_fs": 10.0,
 "stable_limit_fs": 1.0,
 "reason": "A 10 fs timestep without constraints and with standard hydrogen masses is far beyond the stability limit of the fastest motions (X-H bond vibrations, period about 10 fs; the usual limit is 1-2 fs, or 4 fs with HBonds constraints and hydrogen mass repartitioning). The integration would blow up within a few steps and energy cannot be conserved; any trajectory produced would be meaningless for production statistics. Constraining the bonds to hydrogen removes the fastest motions: 4 fs with HBonds is the fastest safe choice.",
 "alternative": {"timestep_fs": 4.0, "constraints": "HBonds", "hydrogen_mass_amu": null}}
EOF
