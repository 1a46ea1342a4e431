#!/bin/bash
set -euo pipefail
export OMP_NUM_THREADS=1
mkdir -p /app/output && cd /app/output
# GROMACS 2022 runs expanded ensemble with md-vv only (grompp: "Can only use expanded ensemble with md-vv");
# md-vv has no sd, so the canonical v-rescale thermostat keeps 300 K.
sed -e 's/^integrator = sd$/integrator = md-vv/' /app/inputs/md.mdp > ee.mdp
cat >> ee.mdp <<'MDP'
tcoupl = v-rescale

; expanded-ensemble decoupling of MOL: Coulomb off first (states 0-4), then Lennard-Jones with soft-core (5-10)
free-energy = expanded
couple-moltype = MOL
couple-lambda0 = vdw-q
couple-lambda1 = none
couple-intramol = no
init-lambda-state = 0
coul-lambdas = 0.0 0.25 0.5 0.75 1.0 1.0 1.0 1.0 1.0 1.0 1.0
vdw-lambdas  = 0.0 0.0  0.0 0.0  0.0 0.2 0.4 0.6 0.8 0.9 1.0
sc-alpha = 0.5
sc-power = 1
sc-sigma = 0.3
nstdhdl = 100
calc-lambda-neighbors = -1
nstexpanded = 100
lmc-stats = wang-landau
lmc-move = metropolized-gibbs
lmc-seed = 7
init-wl-delta = 1.0
wl-scale = 0.8
wl-ratio = 0.8
MDP
gmx -quiet grompp -f ee.mdp -c /app/inputs/conf.gro -p /app/inputs/topol.top -o ee.tpr -maxwarn 0
gmx -quiet mdrun -s ee.tpr -deffnm check -nsteps 300 -nt 1
grep -A14 "MC-lambda information" check.log | tail -14
rm -f check.* mdout.mdp ./\#*
python3 - <<'PY'
import json
json.dump({"n_states": 11, "coul_lambdas": [0, 0.25, 0.5, 0.75, 1, 1, 1, 1, 1, 1, 1],
           "vdw_lambdas": [0, 0, 0, 0, 0, 0.2, 0.4, 0.6, 0.8, 0.9, 1.0], "integrator": "md-vv", "thermostat": "v-rescale"},
          open("ee.json", "w"))
PY
