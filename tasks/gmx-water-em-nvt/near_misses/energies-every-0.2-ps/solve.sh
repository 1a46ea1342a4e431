#!/bin/bash
# Near miss: a unit slip in the output interval. "Every 0.1 ps" is written as nstenergy = 100 (steps of 1 fs in
# mind), so with 2 fs steps nvt.edr has a frame every 0.2 ps; everything else as the reference does.
set -euo pipefail
export OMP_NUM_THREADS=1
mkdir -p /app/output && cd /app/output
cp /app/inputs/topol.top /app/inputs/water.gro .
cat > em.mdp <<'MDP'
integrator    = steep
emtol         = 1000.0
nsteps        = 5000
cutoff-scheme = Verlet
coulombtype   = PME
rcoulomb      = 1.0
rvdw          = 1.0
MDP
cat > nvt.mdp <<'MDP'
integrator    = md
dt            = 0.002
nsteps        = 2500
nstenergy     = 100
nstcalcenergy = 100
cutoff-scheme = Verlet
coulombtype   = PME
rcoulomb      = 1.0
rvdw          = 1.0
tcoupl        = V-rescale
tc-grps       = System
tau-t         = 0.1
ref-t         = 300
pcoupl        = no
gen-vel       = yes
gen-temp      = 300
gen-seed      = 2024
constraints   = h-bonds
MDP
gmx -quiet grompp -f em.mdp -c water.gro -p topol.top -o em.tpr
gmx -quiet mdrun -deffnm em -nt 1
gmx -quiet grompp -f nvt.mdp -c em.gro -p topol.top -o nvt.tpr
gmx -quiet mdrun -deffnm nvt -nt 1
echo Potential | gmx -quiet energy -f em.edr -o em_potential.xvg
printf 'Temperature\nPotential\n\n' | gmx -quiet energy -f nvt.edr -o nvt_energy.xvg
python3 - <<'PY'
import json
import numpy as np
em = np.loadtxt("em_potential.xvg", comments=("#", "@"))
import re
legends = re.findall(r'^@ s\d+ legend "(.*)"', open("nvt_energy.xvg").read(), re.M)  # columns follow the term order
nvt = np.loadtxt("nvt_energy.xvg", comments=("#", "@"))
column = {name: 1 + i for i, name in enumerate(legends)}
json.dump({"em_final_potential_kj_mol": float(em[-1, 1]),
           "nvt_mean_temperature_k": float(nvt[:, column["Temperature"]].mean()),
           "nvt_mean_potential_kj_mol": float(nvt[:, column["Potential"]].mean())}, open("energy.json", "w"), indent=1)
PY
rm -f ./\#* em.trr nvt.cpt
