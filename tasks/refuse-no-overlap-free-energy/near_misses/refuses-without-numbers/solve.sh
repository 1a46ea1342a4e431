#!/bin/bash
# Near miss: the right refusal, nothing computed. Three windows for 0 -> 1 "obviously" cannot overlap, so the
# response says unreliable without running MBAR: no estimate, no overlap matrix, the worst pair guessed.
set -euo pipefail
mkdir -p /app/output
cat > /app/output/response.json <<'JSON'
{"status": "unreliable", "delta_f_kt": null, "error_kt": null, "min_overlap": null, "worst_pair": [1, 2],
 "cause": "no_overlap_between_windows", "remedy": "add_intermediate_windows",
 "reason": "Three lambda windows are far too few for this transformation: adjacent windows cannot share configurations (no phase-space overlap), so no MBAR estimate from them can be trusted.",
 "recommendation": "Rerun with intermediate lambda windows (11 or more) and check the MBAR overlap matrix before publishing."}
JSON
