#!/bin/bash
set -euo pipefail
export OMP_NUM_THREADS=1
mkdir -p /app/output && cd /app/output
# Index groups: GROMACS's default groups (System for tc-grps) plus the heavy atoms of Tyr2 and of Trp9.
gmx -quiet make_ndx -f /app/inputs/conf.gro -o index.ndx <<< q
gmx -quiet select -s /app/inputs/conf.gro -on pull_groups.ndx \
    -select '"TYR2_heavy" resid 2 and resname TYR and not name "H.*"; "TRP9_heavy" resid 9 and resname TRP and not name "H.*"'
cat pull_groups.ndx >> index.ndx && rm pull_groups.ndx
# Every window starts from the shipped frame (no pulled starting frames).
frame=/app/inputs/conf.gro
centers=(1.2 1.4 1.6 1.8 2.0 2.2 2.4 2.6 2.8)
for i in "${!centers[@]}"; do
    c=${centers[$i]}
    { cat /app/inputs/md.mdp
      cat <<MDP

; umbrella window $i: harmonic restraint on the Tyr2-Trp9 heavy-atom COM distance at $c nm
pull                 = yes
pull-ngroups         = 2
pull-ncoords         = 1
pull-group1-name     = TYR2_heavy
pull-group2-name     = TRP9_heavy
pull-coord1-type     = umbrella
pull-coord1-geometry = distance
pull-coord1-groups   = 1 2
pull-coord1-dim      = Y Y Y
pull-coord1-start    = no
pull-coord1-init     = $c
pull-coord1-rate     = 0
pull-coord1-k        = 2000
pull-nstxout         = 50
pull-nstfout         = 50
MDP
    } > window_$i.mdp
    gmx -quiet grompp -f window_$i.mdp -c "$frame" -r "$frame" -p /app/inputs/topol.top \
        -n index.ndx -o window_$i.tpr -po mdout_$i.mdp -maxwarn 0
done
# The CV at the start, as the pull code computes it: a zero-step rerun of the input frame.
gmx -quiet mdrun -s window_0.tpr -rerun /app/inputs/conf.gro -deffnm rerun0 -px rerun0_pullx.xvg -pf rerun0_pullf.xvg -nt 1
start=$(grep -v '^[#@]' rerun0_pullx.xvg | head -1 | awk '{print $2}')
python3 - "$start" "${centers[@]}" <<'PY'
import json, sys
start, centers = float(sys.argv[1]), [float(c) for c in sys.argv[2:]]
json.dump({"start_distance_nm": start, "force_constant_kj_mol_nm2": 2000.0,
           "windows": [{"window": i, "mdp": f"window_{i}.mdp", "tpr": f"window_{i}.tpr", "center_nm": c}
                       for i, c in enumerate(centers)]}, open("windows.json", "w"), indent=1)
PY
rm -f ./\#* mdout_*.mdp rerun0*
