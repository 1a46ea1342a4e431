#!/bin/bash
# Near miss: a fix that changes what was not wrong. The out-of-order bin boundary 0.15 is deleted instead of
# moved into place, so the run loses a bin; the other four mistakes are fixed as the reference does.
set -euo pipefail
mkdir -p /app/output
sed -e 's/\t/    /' \
    -e 's/pcoord_len: 10/pcoord_len: 11/' \
    -e "s/\[0.0, 0.1, 0.2, 0.15, 0.3, 0.4, 0.6, 'inf'\]/[0.0, 0.1, 0.2, 0.3, 0.4, 0.6, 'inf']/" \
    -e 's/ExecutablePropogator/ExecutablePropagator/' \
    -e 's#westpa_scripts/run_segment.sh#westpa_scripts/runseg.sh#' \
    /app/inputs/sim/west.cfg > /app/output/west.cfg
cat > /app/output/fixes.md <<'EOF'
- A tab indented `datasets:` (YAML forbids tabs): replaced by spaces, nested under `data`.
- `pcoord_len` was 10; runseg.sh saves 100 steps every 10 steps plus the starting frame: 11.
- Bin boundaries were not increasing (0.15 after 0.2): the out-of-order 0.15 removed.
- The propagator class name was misspelled (`ExecutablePropogator`).
- The propagator script `run_segment.sh` does not exist: the script is `westpa_scripts/runseg.sh`.
EOF
