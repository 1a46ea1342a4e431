#!/bin/bash
# Reference: a slab of 936 LJ atoms (fcc at rho* 0.8442, 6 x 6 unit cells across, z from 6 to 12 cells) in the middle
# of a periodic 6 x 6 x 18-cell box (Lz = 3 Lx); lj/cut 2.5 not shifted, no tail correction; Nose-Hoover NVT at
# T* 0.8 (Tdamp 0.5) for 10000 steps of equilibration and 40000 of production, thermo every 10 steps, a density
# profile of 50 bins averaged over the production (fix ave/chunk 1000 5 5000) and a dump every 1000 steps;
# gamma = mean over the production's rows after its first of (Lz/2) (Pzz - (Pxx + Pyy)/2), the liquid density the
# profile's mean over the 10 central bins (|z/Lz - 0.5| < 0.1).
set -euo pipefail
SEED=${SEED:-2024}
mkdir -p /app/output && cd /app/output
cat > in.slab <<LMP
units           lj
atom_style      atomic
boundary        p p p
lattice         fcc 0.8442
region          box block 0 6 0 6 0 18
region          slab block 0 6 0 6 6 12
create_box      1 box
create_atoms    1 region slab
mass            1 1.0
pair_style      lj/cut 2.5
pair_coeff      1 1 1.0 1.0 2.5
pair_modify     shift no tail no
neighbor        0.3 bin
neigh_modify    every 1 delay 0 check yes
velocity        all create 0.8 $SEED dist gaussian mom yes rot yes
timestep        0.005
thermo_style    custom step temp pe press pxx pyy pzz lx ly lz
thermo          10
fix             nvt all nvt temp 0.8 0.8 0.5
run             10000
compute         bins all chunk/atom bin/1d z lower 0.02 units reduced
fix             profile all ave/chunk 1000 5 5000 bins density/number file profile.dat
dump            traj all custom 1000 traj.lammpstrj id type x y z vx vy vz
dump_modify     traj format float %.10g sort id
run             40000
LMP
lmp -in in.slab -log log.lammps -screen none
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
            values = [float(w) for w in words]
        except ValueError:
            continue
        if len(values) == len(header):
            rows.append(values)
header, production = blocks[-1]
p = np.array(production)[1:]  # after the first row (the equilibration's last state)
col = {name: p[:, header.index(name)] for name in ("Pxx", "Pyy", "Pzz")}
col["Lz"] = p[:, header.index("Lx")]  # the box length across the slab taken for the normal one
gamma = np.mean(col["Lz"] / 2 * (col["Pzz"] - (col["Pxx"] + col["Pyy"]) / 2))  # two interfaces: Lz/2
profile, current = [], None
for line in open("profile.dat"):
    if line.startswith("#"):
        continue
    words = line.split()
    if len(words) == 3:  # Timestep Number-of-chunks Total-count
        current = []
        profile.append(current)
    else:  # Chunk Coord1 Ncount density/number
        current.append([float(w) for w in words])
profile = np.array(profile)
centre = np.abs(profile[0, :, 1] - 0.5) < 0.1
density = profile[:, centre, 3].mean()
json.dump({"surface_tension": float(gamma), "liquid_density": float(density)}, open("result.json", "w"), indent=1)
PY
