#!/bin/bash
# Near miss: the standard error of single rows, not of blocks.
# Reference: 256 LJ atoms started on an fcc lattice at rho* 0.8442; Nose-Hoover NPT at T* 1.5, P* 2.5 (Tdamp 0.5,
# Pdamp 5.0, iso) for 2500 steps of equilibration and 10000 of production, thermo every 50, a dump every 500; mean
# density over the production's rows after its first and its error over 10 blocks of 20 rows.
set -euo pipefail
SEED=${SEED:-2024}
mkdir -p /app/output && cd /app/output
cat > in.lj <<LMP
units           lj
atom_style      atomic
lattice         fcc 0.8442
region          box block 0 4 0 4 0 4
create_box      1 box
create_atoms    1 box
mass            1 1.0
pair_style      lj/cut 2.5
pair_coeff      1 1 1.0 1.0 2.5
pair_modify     shift no tail yes
neighbor        0.3 bin
neigh_modify    every 1 delay 0 check yes
velocity        all create 1.5 $SEED dist gaussian mom yes rot yes
timestep        0.005
thermo_style    custom step time temp press pe ke etotal vol density
thermo          50
fix             npt all npt temp 1.5 1.5 0.5 iso 2.5 2.5 5.0
run             2500
dump            traj all custom 500 traj.lammpstrj id type x y z vx vy vz
dump_modify     traj format float %.10g sort id
run             10000
LMP
lmp -in in.lj -log log.lammps -screen none
python3 - <<'PY'
import json

import numpy as np

blocks, rows = [], None
for line in open("log.lammps"):
    words = line.split()
    if words[:1] == ["Step"]:
        header, rows = words, []
        blocks.append((header, rows))
    elif rows is not None and line.startswith("Loop time"):
        rows = None
    elif rows is not None:
        try:
            rows.append([float(w) for w in words])
        except ValueError:
            pass
header, production = blocks[-1]
density = np.array(production)[1:, header.index("Density")]  # after the first row (the equilibration's last state)
means = density.reshape(10, -1).mean(axis=1)
json.dump({"mean_density": float(density.mean()),
           "density_block_se": float(density.std(ddof=1) / np.sqrt(len(density)))},
          open("result.json", "w"), indent=1)
PY
