#!/bin/bash
# Reference: one production mdp per state of a 13-state schedule (charges off first, then LJ with soft-core),
# ethanol decoupled with couple-moltype (intramolecular interactions kept), every state's energy written
# (calc-lambda-neighbors = 1, for MBAR), grompp -maxwarn 0 for each, and a short test run of state 5.
set -euo pipefail
export OMP_NUM_THREADS=1
OUT=/app/output
mkdir -p "$OUT"
COUL="0.00 0.25 0.50 0.75 1.00 1.00 1.00 1.00 1.00 1.00 1.00 1.00 1.00"
VDW="0.00 0.00 0.00 0.00 0.00 0.125 0.25 0.375 0.50 0.625 0.75 0.875 1.00"
for i in $(seq 0 12); do
    d=$(printf "%s/lambda_%02d" "$OUT" "$i")
    mkdir -p "$d"
    cat > "$d/prod.mdp" <<MDP
integrator           = sd
dt                   = 0.002
nsteps               = 250000
nstcalcenergy        = 100
nstenergy            = 1000
nstlog               = 5000
cutoff-scheme        = Verlet
coulombtype          = PME
rcoulomb             = 1.0
vdwtype              = Cut-off
vdw-modifier         = Potential-shift
rvdw                 = 1.0
DispCorr             = EnerPres
constraints          = h-bonds
constraint-algorithm = lincs
tc-grps              = System
tau-t                = 1.0
ref-t                = 298.15
pcoupl               = C-rescale
tau-p                = 2.0
ref-p                = 1.0
compressibility      = 4.5e-5
gen-vel              = yes
gen-temp             = 298.15
gen-seed             = 2025
; free energy: decouple ethanol, charges first (states 0-4), then Lennard-Jones (states 5-12)
free-energy          = yes
couple-moltype       = ETH
couple-lambda0       = vdw-q
couple-lambda1       = none
couple-intramol      = no
init-lambda-state    = $i
coul-lambdas         = $COUL
vdw-lambdas          = $VDW
sc-alpha             = 0.5
sc-power             = 1
sc-sigma             = 0.3
sc-r-power           = 6
sc-coul              = no
nstdhdl              = 100
calc-lambda-neighbors = 1
dhdl-derivatives     = yes
separate-dhdl-file   = yes
MDP
    gmx -quiet grompp -f "$d/prod.mdp" -c /app/inputs/conf.gro -p /app/inputs/topol.top -o "$d/prod.tpr" \
        -po "$d/mdout.mdp" -maxwarn 0 >"$d/grompp.log" 2>&1
done
# A short test run of the first LJ state: 1000 steps, the dhdl.xvg with every state's energy difference.
test=$OUT/test_run
mkdir -p "$test"
sed -e 's/^nsteps .*/nsteps               = 1000/' "$OUT/lambda_05/prod.mdp" > "$test/test.mdp"
gmx -quiet grompp -f "$test/test.mdp" -c /app/inputs/conf.gro -p /app/inputs/topol.top -o "$test/test.tpr" -po "$test/mdout.mdp" -maxwarn 0 >"$test/grompp.log" 2>&1
(cd "$test" && gmx -quiet mdrun -nt 1 -deffnm test >mdrun.log 2>&1)
rm -f "$OUT"/*/\#* 
ls "$OUT" "$test"
