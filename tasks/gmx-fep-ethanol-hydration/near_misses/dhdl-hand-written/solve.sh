#!/bin/bash
# Reference: one production mdp per state of a 13-state schedule (charges off first, then LJ with soft-core),
# ethanol decoupled with couple-moltype (intramolecular interactions kept), every state's energy written
# (calc-lambda-neighbors = -1, for MBAR), grompp -maxwarn 0 for each; the test run of state 5 is never run.
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
calc-lambda-neighbors = -1
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
# the mistake: no mdrun; the dhdl.xvg is written by hand, mdrun's header and legends with plausible numbers (dH/dl
# near 20 kJ/mol, Delta H linear in coul-lambda as the Hamiltonian is, rising along the vdw states, a little noise)
{
    printf '# This file was created by hand\n# Created by:\n#              :-) GROMACS - gmx mdrun, 2022.5 (-:\n'
    printf '@    title "dH/d\\xl\\f{} and \\xD\\f{}H"\n@    xaxis  label "Time (ps)"\n@TYPE xy\n'
    printf '@ subtitle "T = 298.15 (K) \\xl\\f{} state 5: (coul-lambda, vdw-lambda) = (1.0000, 0.1250)"\n'
    printf '@ s0 legend "dH/d\\xl\\f{} coul-lambda = 1.0000"\n@ s1 legend "dH/d\\xl\\f{} vdw-lambda = 0.1250"\n'
    s=2
    for c in 0.0000 0.2500 0.5000 0.7500; do printf '@ s%d legend "\\xD\\f{}H \\xl\\f{} to (%s, 0.0000)"\n' $s $c; s=$((s + 1)); done
    for v in 0.0000 0.1250 0.2500 0.3750 0.5000 0.6250 0.7500 0.8750 1.0000; do
        printf '@ s%d legend "\\xD\\f{}H \\xl\\f{} to (1.0000, %s)"\n' $s $v; s=$((s + 1))
    done
    printf '@ s15 legend "pV (kJ/mol)"\n'
    awk 'BEGIN { srand(5); for (i = 0; i <= 10; i++) {
        dc = 20 + 8 * (rand() - 0.5); dv = 18 + 8 * (rand() - 0.5); line = sprintf("%.4f %.6f %.6f", 0.2 * i, dc, dv)
        for (k = 0; k < 5; k++) line = line sprintf(" %.6f", -dc * (1 - k / 4) - 2 + 0.2 * rand())
        line = line " 0.000000"
        for (k = 1; k <= 7; k++) line = line sprintf(" %.6f", k * (2.5 + 0.3 * k) + 0.3 * rand())
        print line " 0.941" } }'
} > "$test/dhdl.xvg"
rm -f "$OUT"/*/\#* 
ls "$OUT" "$test"
