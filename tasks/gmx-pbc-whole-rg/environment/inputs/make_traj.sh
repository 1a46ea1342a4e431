#!/bin/bash
# Build the shipped trajectory: chignolin in TIP3P water, its centre put on a corner of the box so that the
# peptide straddles the periodic boundaries, 2 ps of NVT written every 0.2 ps (mdrun wraps atoms into the box).
# Run once by the Dockerfile (about 30 s on one core); the image keeps md.tpr, traj.xtc, topol.top, posre.itp, md.mdp.
set -euo pipefail
export OMP_NUM_THREADS=1
gmx -quiet pdb2gmx -f peptide_heavy.pdb -o pep.gro -p topol.top -i posre.itp -ff amber99sb-ildn -water tip3p -ignh
gmx -quiet editconf -f pep.gro -o box.gro -box 4.2 -center 0 0 0
gmx -quiet solvate -cp box.gro -cs spc216.gro -o solv.gro -p topol.top
cat > em.mdp <<'MDP'
integrator = steep
nsteps = 200
cutoff-scheme = Verlet
coulombtype = PME
rcoulomb = 1.0
rvdw = 1.0
MDP
cat > md.mdp <<'MDP'
integrator = md
dt = 0.002
nsteps = 1000
nstxout-compressed = 100
nstenergy = 100
nstcalcenergy = 50
nstlog = 1000
cutoff-scheme = Verlet
coulombtype = PME
rcoulomb = 1.0
rvdw = 1.0
constraints = h-bonds
tcoupl = v-rescale
tc-grps = System
tau-t = 0.1
ref-t = 300
gen-vel = yes
gen-temp = 300
gen-seed = 11
MDP
gmx -quiet grompp -f em.mdp -c solv.gro -p topol.top -o ions.tpr -maxwarn 1  # net charge -2 before genion
echo SOL | gmx -quiet genion -s ions.tpr -o ions.gro -p topol.top -pname NA -neutral
gmx -quiet grompp -f em.mdp -c ions.gro -p topol.top -o em.tpr
gmx -quiet mdrun -nt 1 -deffnm em
gmx -quiet grompp -f md.mdp -c em.gro -p topol.top -o md.tpr
gmx -quiet mdrun -nt 1 -deffnm md
mv md.xtc traj.xtc
rm -f pep.gro box.gro solv.gro ions.* em.* md.edr md.log md.cpt md.gro mdout.mdp ./\#*
