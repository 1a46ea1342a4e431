#!/bin/bash
# Reference: SPC/E (q_O -0.8476 e, q_H +0.4238 e; O-O epsilon 0.1553 kcal/mol, sigma 3.166 A; rigid O-H 1.0 A,
# H-O-H 109.47 deg by SHAKE), lj/cut/coul/long 10 A with the tail correction, PPPM 1e-4, Nose-Hoover NPT at 300 K
# (100 fs) and 1 atm (real units' pressure is atm; 1000 fs), 2 fs steps, 10000 steps; means over steps 5000-10000.
set -euo pipefail
mkdir -p /app/output && cd /app/output
cat > in.spce <<'IN'
# SPC/E water, 216 molecules: 20 ps of NPT at 300 K and 1 atm
units           real
atom_style      full
boundary        p p p
read_data       /app/inputs/spce_216.data
set             type 1 charge -0.8476
set             type 2 charge 0.4238
pair_style      lj/cut/coul/long 10.0
pair_coeff      1 1 0.1553 3.166
pair_coeff      1 2 0.0 0.0
pair_coeff      2 2 0.0 0.0
pair_modify     tail yes
kspace_style    pppm 1.0e-4
bond_style      harmonic
bond_coeff      1 1000.0 1.0
angle_style     harmonic
angle_coeff     1 100.0 109.47
neighbor        2.0 bin
neigh_modify    every 1 delay 0 check yes
velocity        all create 300.0 4928 mom yes rot yes dist gaussian
timestep        2.0
fix             1 all shake 1.0e-4 100 0 b 1 a 1
fix             2 all npt temp 300.0 300.0 100.0 iso 1.0 1.0 1000.0
thermo_style    custom step time temp press pe density vol
thermo          100
run             10000
IN
lmp -in in.spce -log log.lammps > /dev/null
python3 - <<'PY'
import json
lines = open("log.lammps").read().splitlines()
head = max(i for i, line in enumerate(lines) if line.split()[:1] == ["Step"])
columns = lines[head].split()
rows = []
for line in lines[head + 1:]:
    if line.startswith("Loop time"):
        break
    try:
        rows.append([float(x) for x in line.split()])
    except ValueError:
        continue  # SHAKE statistics or warnings between the rows
production = [r for r in rows if len(r) == len(columns) and r[0] >= 5000]
mean = {c: sum(r[k] for r in production) / len(production) for k, c in enumerate(columns)}
json.dump({
    "mean_density_g_cm3": mean["Density"],
    "mean_pe_kcal_mol_per_molecule": mean["PotEng"] / 216,
}, open("result.json", "w"), indent=1)
PY
