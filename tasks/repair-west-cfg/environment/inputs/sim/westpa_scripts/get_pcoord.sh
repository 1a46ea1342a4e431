#!/bin/bash
# Progress coordinate of a base or initial state: one value.
set -euo pipefail
python3 "$WEST_SIM_ROOT/westpa_scripts/rmsd_pcoord.py" "$WEST_STRUCT_DATA_REF" > "$WEST_PCOORD_RETURN"
