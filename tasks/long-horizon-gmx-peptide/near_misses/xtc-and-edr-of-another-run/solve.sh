#!/bin/bash
# Near miss: nvt.xtc and nvt.edr of another run of the same system (another velocity seed) delivered with nvt.tpr;
# the analysis is done on the delivered files, so every number agrees with them.
set -euo pipefail
export OMP_NUM_THREADS=1
mkdir -p /app/output && cd /app/output
gmx -quiet pdb2gmx -f /app/inputs/peptide_heavy.pdb -o processed.gro -p topol.top -i posre.itp -ff amber99sb-ildn -water tip3p -ignh
gmx -quiet editconf -f processed.gro -o box.gro -c -d 0.8 -bt dodecahedron
gmx -quiet solvate -cp box.gro -cs spc216.gro -o solvated.gro -p topol.top
cat > em.mdp <<'MDP'
integrator    = steep
emtol         = 1000.0
nsteps        = 5000
cutoff-scheme = Verlet
coulombtype   = PME
rcoulomb      = 1.0
rvdw          = 1.0
MDP
gmx -quiet grompp -f em.mdp -c solvated.gro -p topol.top -o ions.tpr -maxwarn 1  # net charge, neutralized next
echo SOL | gmx -quiet genion -s ions.tpr -o ions.gro -p topol.top -pname NA -nname CL -neutral -seed 5
gmx -quiet grompp -f em.mdp -c ions.gro -p topol.top -o em.tpr
gmx -quiet mdrun -deffnm em -nt 1
cat > nvt.mdp <<'MDP'
integrator    = md
dt            = 0.002
nsteps        = 1000
nstxout-compressed = 100
nstenergy     = 50
nstcalcenergy = 50
cutoff-scheme = Verlet
coulombtype   = PME
rcoulomb      = 1.0
rvdw          = 1.0
tcoupl        = V-rescale
tc-grps       = Protein Non-Protein
tau-t         = 0.1 0.1
ref-t         = 300 300
pcoupl        = no
gen-vel       = yes
gen-temp      = 300
gen-seed      = 42
constraints   = h-bonds
MDP
gmx -quiet grompp -f nvt.mdp -c em.gro -p topol.top -o nvt.tpr
gmx -quiet mdrun -deffnm nvt -nt 1
# The near miss: the run is made again with another velocity seed (a second attempt, say), and that attempt's
# trajectory and energies are delivered beside the first attempt's nvt.tpr.
sed 's/^gen-seed .*/gen-seed      = 7/' nvt.mdp > again.mdp
gmx -quiet grompp -f again.mdp -c em.gro -p topol.top -o again.tpr
gmx -quiet mdrun -deffnm again -nt 1
mv again.xtc nvt.xtc
mv again.edr nvt.edr
rm -f again.*
printf 'Backbone\nBackbone\n' | gmx -quiet rms -s nvt.tpr -f nvt.xtc -o rmsd.xvg -tu ps
printf 'Protein\n' | gmx -quiet gyrate -s nvt.tpr -f nvt.xtc -o gyrate.xvg
printf 'Temperature\n\n' | gmx -quiet energy -f nvt.edr -o temperature.xvg
python3 - <<'PY'
import json
import numpy as np
load = lambda path: np.loadtxt(path, comments=("#", "@"), ndmin=2)
rmsd, rg, temperature = load("rmsd.xvg"), load("gyrate.xvg"), load("temperature.xvg")
names = [l[5:10].strip() for l in open("em.gro").read().splitlines()[2:-1]]
ions = lambda name: sum(1 for n in names if n == name)
result = {"n_frames": len(rmsd), "mean_rmsd_nm": float(rmsd[:, 1].mean()), "mean_rg_nm": float(rg[:, 1].mean()),
          "mean_temperature_k": float(temperature[:, 1].mean()), "sodium": ions("NA"), "chloride": ions("CL")}
json.dump(result, open("analysis.json", "w"), indent=1)
open("report.md", "w").write(f"""# Chignolin in water with GROMACS

## Steps
1. `pdb2gmx` (AMBER99SB-ILDN, TIP3P, hydrogens for pH 7); rhombic dodecahedron with 0.8 nm padding; `solvate`;
   `genion` with {result['sodium']} Na+ and {result['chloride']} Cl- to neutralize the peptide's charge of -2.
2. Steepest-descent minimization to Fmax < 1000 kJ/mol/nm (PME, 1.0 nm cutoffs).
3. NVT, 2 ps, 2 fs steps, h-bond constraints, V-rescale 300 K (Protein / Non-Protein, tau 0.1 ps), seed 42.
4. Analysis: `gmx rms` (Backbone fit and RMSD vs the run's start), `gmx gyrate` (Protein), `gmx energy` (Temperature).

## Results
| quantity | value |
|---|---|
| frames | {result['n_frames']} |
| mean backbone RMSD | {result['mean_rmsd_nm']:.3f} nm |
| mean radius of gyration | {result['mean_rg_nm']:.3f} nm |
| mean temperature | {result['mean_temperature_k']:.1f} K |

The peptide stays close to its starting structure over 2 ps; the temperature is held near 300 K. 2 ps is an
equilibration, far too short for conformational statistics.
""")
PY
rm -f ./\#* processed.gro box.gro solvated.gro ions.tpr ions.gro em.trr em.tpr nvt.cpt mdout.mdp temperature.xvg
