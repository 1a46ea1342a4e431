#!/bin/bash
# Reference: the Kremer-Grest melt of /app/inputs/kg_melt.data (20 chains x 20 beads) with attractive LJ pairs
# (lj/cut 2.5, shifted), FENE bonds, special_bonds lj 0 1 1; Nose-Hoover NPT at P = 0, cooled stepwise from
# T 1.0 to 0.2 (13 temperatures, STEPS steps each); the mean volume per bead of each temperature over the last
# half of its run; straight lines through the melt's (0.6-1.0) and the glass's (0.2-0.35) volumes; Tg where they meet.
set -euo pipefail
SEED=${SEED:-2024}
mkdir -p /app/output && cd /app/output
cat > in.tg <<LMP
units           lj
atom_style      bond
read_data       /app/inputs/kg_melt.data
bond_style      fene
bond_coeff      1 30.0 1.5 1.0 1.0
special_bonds   lj 0.0 1.0 1.0
pair_style      lj/cut 2.5
pair_coeff      1 1 1.0 1.0 2.5
pair_modify     shift yes
neighbor        0.3 bin
neigh_modify    every 1 delay 0 check yes
velocity        all create 1.0 $SEED dist gaussian mom yes
timestep        0.005
thermo_style    custom step temp press vol pe
thermo          100
variable        T index 1.0 0.9 0.8 0.7 0.6 0.55 0.5 0.45 0.4 0.35 0.3 0.25 0.2
label           cool
fix             md all npt temp \${T} \${T} 0.5 iso 0.0 0.0 5.0
run             6000
unfix           md
next            T
jump            SELF cool
LMP
lmp -in in.tg -log log.lammps -screen none
python3 - <<'PY'
import json
import re

import numpy as np

TEMPS = [1.0, 0.9, 0.8, 0.7, 0.6, 0.55, 0.5, 0.45, 0.4, 0.35, 0.3, 0.25, 0.2]
N, STEPS = 400, 6000
blocks, rows = [], None
for line in open("log.lammps"):
    words = line.split()
    if words[:1] == ["Step"]:
        header, rows = words, []
        blocks.append(rows)
    elif rows is not None and line.startswith("Loop time"):
        rows = None
    elif rows is not None and len(words) == len(header):
        rows.append([float(w) for w in words])
volumes = []
for rows in blocks:
    rows = np.array(rows)
    last_half = rows[:, 0] >= rows[0, 0] + STEPS // 2
    volumes.append(rows[last_half, header.index("Volume")].mean() / N)
T, v = np.array(TEMPS), np.array(volumes)
melt, glass = (T >= 0.6 - 1e-9), (T <= 0.35 + 1e-9)
a1, b1 = np.polyfit(T[melt], v[melt], 1)
a2, b2 = np.polyfit(T[glass], v[glass], 1)
tg = T[np.argmin(abs(T - (b2 - b1) / (a1 - a2)))]
json.dump({"temperatures": TEMPS, "volume_per_bead": [float(x) for x in v], "Tg": float(tg)}, open("result.json", "w"), indent=1)
PY
