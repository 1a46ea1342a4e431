#!/bin/bash
# Reference: 500 LJ atoms at rho* 0.8442, T* 1.5; NVT (Nose-Hoover) 5000 steps, then 20000 production steps with
# thermo every 100, a dump and the RDF every 200; pressure mean and block error and the RDF's first peak.
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
reset_timestep  0
compute         rdf all rdf 100 cutoff 2.5
fix             rdf all ave/time 200 100 20000 c_rdf[*] file rdf.dat mode vector
dump            traj all custom 200 traj.lammpstrj id type x y z ix iy iz
dump_modify     traj format float %.10g sort id
run             20000
LMP
lmp -in in.lj -log log.lammps -screen none
python3 - <<'PY'
import json
import numpy as np

runs, rows, inside = [], [], False
for line in open("log.lammps"):
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
production = runs[-1][1:]  # the production's rows after its first (that one is the equilibration's last state)
pressure = production[:, header.index("Press")]
blocks = pressure.reshape(10, -1).mean(axis=1)
rdf = np.loadtxt("rdf.dat", comments="#", skiprows=4)  # one block: index, r, g(r), coordination
peak = int(np.argmax(rdf[:, 2]))
json.dump({"mean_pressure": float(pressure.mean()),
           "pressure_block_se": float(blocks.std(ddof=1) / np.sqrt(len(blocks))),
           "rdf_peak_r": float(rdf[peak, 1]), "rdf_peak_g": float(rdf[peak, 2])},
          open("result.json", "w"), indent=1)
PY
