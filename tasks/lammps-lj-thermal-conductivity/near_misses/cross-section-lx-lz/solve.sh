#!/bin/bash
# Near miss: the cross-section Lx Lz on top of the reference. Reference: 2000 LJ atoms at rho* 0.6 (5 x 5 x 20 fcc cells), T* 1.35; Nose-Hoover NVT 2000 steps, then 30000 NVE
# steps with Muller-Plathe kinetic-energy swaps every 50 steps along z (20 layers) and the temperature profile
# averaged over 10000-step blocks; kappa = Q / (2 A t |dT/dz|) over the last block (steps 20000-30000).
set -euo pipefail
SEED=${SEED:-2024}
mkdir -p /app/output && cd /app/output
cat > in.kappa <<LMP
units           lj
atom_style      atomic
lattice         fcc 0.6
region          box block 0 5 0 5 0 20
create_box      1 box
create_atoms    1 box
mass            1 1.0
pair_style      lj/cut 2.5
pair_coeff      1 1 1.0 1.0 2.5
neighbor        0.3 bin
neigh_modify    every 1 delay 0 check yes
velocity        all create 1.35 $SEED dist gaussian mom yes rot yes
timestep        0.005
thermo_style    custom step time temp pe ke etotal
thermo_modify   format float %.10g
thermo          100
fix             nvt all nvt temp 1.35 1.35 0.5
run             2000
unfix           nvt
reset_timestep  0
fix             nve all nve
fix             swap all thermal/conductivity 50 z 20
compute         ke all ke/atom
variable        temp atom c_ke/1.5
compute         layers all chunk/atom bin/1d z lower 0.05 units reduced
fix             profile all ave/chunk 50 200 10000 layers v_temp file profile.dat format " %.10g"
thermo_style    custom step time temp pe ke etotal f_swap
thermo_modify   format float %.10g
thermo          50
run             30000
LMP
lmp -in in.kappa -log log.lammps -screen none
python3 - <<'PY'
import json
import re

import numpy as np

DT, FIRST, LAST = 0.005, 20000, 30000
log = open("log.lammps").read()
lx, ly, lz = (float(v) for v in re.search(r"orthogonal box = \(.*?\) to \((\S+) (\S+) (\S+)\)", log).groups())
# the production's thermo table: the last block from "Step Time Temp ..." to "Loop time"
table = log.split("\n")
start = [i for i, line in enumerate(table) if line.split()[:2] == ["Step", "Time"]][-1]
head = table[start].split()
heat = {}
for line in table[start + 1 :]:
    if line.startswith("Loop time"):
        break
    row = line.split()
    heat[int(row[0])] = float(row[head.index("f_swap")])
# the profile block written at the last step: rows "chunk coord1 ncount temperature"
lines = [line.split() for line in open("profile.dat") if not line.startswith("#")]
at = [i for i, words in enumerate(lines) if len(words) == 3 and int(words[0]) == LAST][0]
block = np.array([[float(v) for v in words] for words in lines[at + 1 : at + 1 + int(lines[at][1])]])
z, temperature = block[:, 1] * lz, block[:, 3]
# cold slab = chunk 1, hot slab = chunk 11; chunks 20, 1, 2 and 10, 11, 12 left out of the fits
rising = np.polyfit(z[2:9], temperature[2:9], 1)[0]
falling = np.polyfit(z[12:19], temperature[12:19], 1)[0]
gradient = (rising - falling) / 2
q = heat[LAST] - heat[FIRST]
kappa = q / (2 * lx * lz * (LAST - FIRST) * DT * gradient)
json.dump({"kappa": float(kappa), "gradient": float(gradient)}, open("result.json", "w"), indent=1)
PY
