#!/bin/bash
# Reference: the T* = 2.0 isotherm of the LJ fluid (lj/cut 2.5, not shifted, tail correction on) at densities 0.50,
# 0.70 and 0.85: 500 atoms each, Nose-Hoover NVT 2500 steps, then 20000 production steps with thermo every 20 steps
# and a dump every 1000; per density the mean production pressure and its error over 10 blocks.
set -euo pipefail
SEED=${SEED:-2024}
mkdir -p /app/output && cd /app/output
for RHO in 0.50 0.70 0.85; do
mkdir -p rho_$RHO && cd rho_$RHO
cat > in.lj <<LMP
units           lj
atom_style      atomic
lattice         fcc $RHO
region          box block 0 5 0 5 0 5
create_box      1 box
create_atoms    1 box
mass            1 1.0
pair_style      lj/cut 2.5
pair_coeff      1 1 1.0 1.0 2.5
pair_modify     shift no tail yes
neighbor        0.3 bin
neigh_modify    every 1 delay 0 check yes
velocity        all create 2.0 $SEED dist gaussian mom yes rot yes
timestep        0.005
thermo_style    custom step time temp press pe ke etotal
thermo          20
fix             nvt all nvt temp 2.0 2.0 0.5
run             2500
reset_timestep  0
dump            traj all custom 1000 traj.lammpstrj id type x y z vx vy vz
dump_modify     traj format float %.10g sort id
run             20000
LMP
lmp -in in.lj -log log.lammps -screen none
cd ..
done
python3 - <<'PY'
import numpy as np


def production(path):
    """The thermo rows of the log's last run (the production) and their column names."""
    runs, rows, inside = [], [], False
    for line in open(path):
        words = line.split()
        if words[:2] == ["Step", "Time"]:
            header, rows, inside = words, [], True
        elif inside and line.startswith("Loop time"):
            runs.append(np.array(rows, dtype=float))
            inside = False
        elif inside:
            try:
                rows.append([float(w) for w in words])
            except ValueError:
                pass
    return header, runs[-1]


with open("eos.csv", "w") as out:
    out.write("density,mean_pressure,pressure_block_se\n")
    for rho in ("0.50", "0.70", "0.85"):
        header, rows = production(f"rho_{rho}/log.lammps")
        pressure = rows[1:, header.index("Press")]  # after the first row (the equilibration's last state)
        blocks = pressure.reshape(10, -1).mean(axis=1)
        out.write(f"{rho},{pressure.mean():.10g},{blocks.std(ddof=1) / np.sqrt(len(blocks)):.10g}\n")
PY
