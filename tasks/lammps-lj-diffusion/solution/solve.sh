#!/bin/bash
# Reference: 500 LJ atoms at rho* 0.8442, T* 1.5; NVT (Nose-Hoover) 5000 steps, then 20000 NVE production steps
# (no thermostat: it would perturb the dynamics D measures) with compute msd and a dump of unwrapped coordinates
# every 200 steps; D = slope / 6 of a least-squares line through the MSD over 20-100 tau.
set -euo pipefail
SEED=${SEED:-2024}
mkdir -p /app/output && cd /app/output
cat > in.lj <<LMP
units           lj
atom_style      atomic
lattice         fcc 0.8442
region          box block 0 5 0 5 0 5
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
thermo_style    custom step time temp press pe ke etotal
thermo          100
fix             nvt all nvt temp 1.5 1.5 0.5
run             5000
unfix           nvt
reset_timestep  0
fix             nve all nve
compute         msd all msd
fix             msd all ave/time 200 1 200 c_msd[4] file msd.dat
dump            traj all custom 200 traj.lammpstrj id type xu yu zu
dump_modify     traj format float %.10g sort id
run             20000
LMP
lmp -in in.lj -log log.lammps -screen none
python3 - <<'PY'
import json
import numpy as np

msd = np.loadtxt("msd.dat", comments="#")  # step, MSD (sigma^2)
t = msd[:, 0] * 0.005
window = (t >= 20.0 - 1e-9) & (t <= 100.0 + 1e-9)
slope, intercept = np.polyfit(t[window], msd[window, 1], 1)
json.dump({"D": float(slope / 6.0), "fit_start": 20.0, "fit_end": 100.0}, open("result.json", "w"), indent=1)
PY
