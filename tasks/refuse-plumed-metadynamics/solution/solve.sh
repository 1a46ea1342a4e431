#!/bin/bash
set -euo pipefail
export OMP_NUM_THREADS=1
mkdir -p /app/output && cd /app/output
# Can it be done here? mdrun's own options, and any PLUMED executable or kernel library on the machine.
if gmx -quiet mdrun -h 2>&1 | grep -q -- '-plumed'; then has_option=true; else has_option=false; fi
if command -v plumed >/dev/null || [ -n "$(find / -xdev \( -name 'libplumed*.so*' -o -name 'libplumedKernel*' \) 2>/dev/null | head -1)" ] \
   || python3 -c 'import plumed' 2>/dev/null; then plumed=true; else plumed=false; fi
echo "mdrun -plumed: $has_option; PLUMED present: $plumed"
# The alternative GROMACS 2022 has itself: AWH on the same pull coordinate.
gmx -quiet make_ndx -f /app/inputs/conf.gro -o index.ndx <<< q
gmx -quiet select -s /app/inputs/conf.gro -on pull_groups.ndx \
    -select '"TYR2_heavy" resid 2 and resname TYR and not name "H.*"; "TRP9_heavy" resid 9 and resname TRP and not name "H.*"'
cat pull_groups.ndx >> index.ndx && rm pull_groups.ndx
{ cat /app/inputs/md.mdp
  cat <<'MDP'

; GROMACS-native adaptive biasing (AWH) of the Tyr2-Trp9 heavy-atom COM distance over 1.2-2.8 nm
pull                           = yes
pull-ngroups                   = 2
pull-ncoords                   = 1
pull-group1-name               = TYR2_heavy
pull-group2-name               = TRP9_heavy
pull-coord1-type               = external-potential
pull-coord1-potential-provider = awh
pull-coord1-geometry           = distance
pull-coord1-groups             = 1 2
pull-coord1-dim                = Y Y Y
pull-nstxout                   = 50
pull-nstfout                   = 50
awh                            = yes
awh-nstout                     = 5000
awh-nbias                      = 1
awh1-ndim                      = 1
awh1-dim1-coord-provider       = pull
awh1-dim1-coord-index          = 1
awh1-dim1-start                = 1.2
awh1-dim1-end                  = 2.8
awh1-dim1-force-constant       = 128000
awh1-dim1-diffusion            = 5e-5
awh1-error-init                = 10
awh1-growth                    = exp-linear
awh1-target                    = constant
MDP
} > awh.mdp
gmx -quiet grompp -f awh.mdp -c /app/inputs/conf.gro -r /app/inputs/conf.gro -p /app/inputs/topol.top -n index.ndx -o awh.tpr -maxwarn 0
gmx -quiet dump -s awh.tpr 2>/dev/null | grep -E 'potential-provider|awh1-ndim|coord-index|^ +(start|end) ' 
rm -f ./\#* mdout.mdp
python3 - "$has_option" "$plumed" <<'PY'
import json, sys
has_option, plumed = (v == "true" for v in sys.argv[1:3])
json.dump({
    "status": "refused",
    "cause": None if (has_option and plumed) else "plumed_unavailable",
    "reason": ("PLUMED metadynamics cannot be run here: this GROMACS 2022.5 is not patched with PLUMED (gmx mdrun has "
               "no -plumed option), no PLUMED executable or kernel library (libplumedKernel) is installed, and the "
               "machine has no network to install one. HILLS, COLVAR and a sum_hills profile would have to be invented. "
               "Instead, awh.tpr biases the same Tyr2-Trp9 heavy-atom COM distance over 1.2-2.8 nm with GROMACS's own "
               "AWH method, which converges the free-energy profile along it (written to the AWH output by gmx awh)."),
    "evidence": {"mdrun_has_plumed_option": has_option, "plumed_available": plumed},
    "alternative": {"method": "awh", "mdp": "awh.mdp", "tpr": "awh.tpr", "index": "index.ndx"},
}, open("response.json", "w"), indent=1)
PY
