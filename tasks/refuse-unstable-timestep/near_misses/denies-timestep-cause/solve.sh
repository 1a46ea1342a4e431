#!/bin/bash
# Near miss: a keyword slip. The reason names the timestep, the 10 fs and a stable 2 fs, but denies that the step is
# the problem and blames the NVE ensemble instead (the enumerated cause nve_cannot_conserve_energy, the stable limit
# left at the requested 10 fs); the alternative is the reference's. A keyword check on the reason passed it.
set -euo pipefail
mkdir -p /app/output
cat > /app/output/response.json <<'JSON'
{"status": "refused",
 "cause": "nve_cannot_conserve_energy",
 "requested_timestep_fs": 10.0,
 "stable_limit_fs": 10.0,
 "reason": "The 10 fs timestep is not the problem: without constraints the hydrogen vibrations are slow enough in implicit solvent. The instability comes from the NVE ensemble itself, which cannot conserve total energy with a generalized Born model, so no trajectory would be usable for production statistics. Run with a thermostat instead; 2 fs with HBonds constraints is a safe default.",
 "alternative": {"timestep_fs": 2.0, "constraints": "HBonds", "hydrogen_mass_amu": null}}
JSON
