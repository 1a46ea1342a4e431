#!/bin/bash
# Propagate one WE segment: 100 MD steps, coordinates saved every 10 steps (the first frame is the
# parent's last), then the progress coordinate (C-alpha RMSD to the folded state, nm) of every frame.
set -euo pipefail
nsteps=100
save_every=10
cd "$WEST_CURRENT_SEG_DATA_REF"
python3 "$WEST_SIM_ROOT/westpa_scripts/md_segment.py" --parent "$WEST_PARENT_DATA_REF" \
    --steps "$nsteps" --save-every "$save_every" --seed "$WEST_RAND16"
python3 "$WEST_SIM_ROOT/westpa_scripts/rmsd_pcoord.py" segment.dcd > "$WEST_PCOORD_RETURN"
