#!/bin/bash
set -euo pipefail
export OMP_NUM_THREADS=1
mkdir -p /app/output && cd /app/output
# pdb2gmx takes the HOH oxygens as TIP3P waters and adds their hydrogens; the protein's own hydrogens are rebuilt.
gmx -quiet pdb2gmx -f /app/inputs/1PGA.pdb -o processed.gro -p topol.top -i posre.itp -ff amber99sb-ildn -water tip3p -ignh
gmx -quiet editconf -f processed.gro -o box.gro -c -d 1.0 -bt cubic
gmx -quiet solvate -cp box.gro -cs spc216.gro -o solvated.gro -p topol.top
gmx -quiet grompp -f /app/inputs/em.mdp -c solvated.gro -p topol.top -o ions.tpr -maxwarn 1  # net charge, neutralized next
# genion must replace bulk waters only (residues SOL; pdb2gmx named the crystal waters HOH), and it edits the
# [ molecules ] line named like the group: give it a group named SOL of the bulk waters
python3 - <<'PY'
lines = open("solvated.gro").read().splitlines()
atoms = lines[2:2 + int(lines[1])]
sol = [i + 1 for i, l in enumerate(atoms) if l[5:10].strip() == "SOL"]
bulk = sol  # the crystal waters are residues HOH here
with open("bulk.ndx", "w") as handle:
    handle.write("[ SOL ]\n" + "\n".join(" ".join(map(str, bulk[i:i + 15])) for i in range(0, len(bulk), 15)) + "\n")
PY
echo SOL | gmx -quiet genion -s ions.tpr -n bulk.ndx -o conf.gro -p topol.top -pname NA -nname CL -neutral -seed 9
gmx -quiet grompp -f /app/inputs/em.mdp -c conf.gro -p topol.top -o em.tpr -maxwarn 0
rm -f ./\#* mdout.mdp ions.tpr processed.gro box.gro solvated.gro bulk.ndx posre.itp  # the near miss: an included file left out
