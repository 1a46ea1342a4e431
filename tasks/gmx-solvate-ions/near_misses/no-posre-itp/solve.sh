#!/bin/bash
set -euo pipefail
export OMP_NUM_THREADS=1
mkdir -p /app/output && cd /app/output
gmx -quiet pdb2gmx -f /app/inputs/peptide_heavy.pdb -o processed.gro -p topol.top -i posre.itp -ff amber99sb-ildn -water tip3p -ignh
gmx -quiet editconf -f processed.gro -o box.gro -c -d 1.0 -bt cubic
gmx -quiet solvate -cp box.gro -cs spc216.gro -o solvated.gro -p topol.top
gmx -quiet grompp -f /app/inputs/em.mdp -c solvated.gro -p topol.top -o ions.tpr -maxwarn 1  # the net charge, removed next
echo SOL | gmx -quiet genion -s ions.tpr -o conf.gro -p topol.top -pname NA -nname CL -neutral -conc 0.15 -seed 7
gmx -quiet grompp -f /app/inputs/em.mdp -c conf.gro -p topol.top -o em.tpr -maxwarn 0
rm -f ./\#* mdout.mdp ions.tpr processed.gro box.gro solvated.gro posre.itp  # the near miss: an included file left out
python3 - <<'PY'
import json
lines = open("conf.gro").read().splitlines()
atoms = int(lines[1])
names = [l[5:10].strip() for l in lines[2:2 + atoms]]
residues = {}
for l in lines[2:2 + atoms]:
    residues.setdefault((l[0:5], l[5:10].strip()), 0)
count = lambda n: sum(1 for (_, name) in residues if name == n)
json.dump({"waters": count("SOL"), "sodium": count("NA"), "chloride": count("CL"), "atoms": atoms,
           "box_nm": [float(x) for x in lines[-1].split()[:3]]}, open("build.json", "w"))
PY
