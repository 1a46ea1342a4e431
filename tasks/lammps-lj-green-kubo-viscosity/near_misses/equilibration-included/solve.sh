#!/bin/bash
# Near miss: the pressure tensor sampled from the equilibration on on top of the reference. Reference: 500 LJ atoms at rho* 0.8442, T* 0.722; NVT (Nose-Hoover) 5000 steps, then 50000 NVE production steps
# with the off-diagonal pressure tensor every 5 steps; eta = V / (kB <T>) * integral over 0-5 tau of the pressure
# autocorrelation (every time origin), averaged over xy, xz, yz.
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
velocity        all create 0.722 $SEED dist gaussian mom yes rot yes
timestep        0.005
thermo_style    custom step time temp press pe ke etotal pxy pxz pyz
thermo_modify   format float %.10g
thermo          100
fix             nvt all nvt temp 0.722 0.722 0.5
fix             stress all ave/time 5 1 5 c_thermo_press[4] c_thermo_press[5] c_thermo_press[6] file pressure.dat format " %.10g"
run             5000
unfix           nvt
fix             nve all nve
dump            conf all custom 2000 conf.lammpstrj id type x y z vx vy vz
dump_modify     conf format float %.10g sort id
run             50000
LMP
lmp -in in.lj -log log.lammps -screen none
python3 - <<'PY'
import json
import re

import numpy as np

N, DENSITY, DT, EVERY, LAGS = 500, 0.8442, 0.005, 5, 200
log = open("log.lammps").read().split("\n")
# the production's thermo table: the second block from "Step Time Temp ..." to "Loop time"
starts = [i for i, line in enumerate(log) if line.split()[:2] == ["Step", "Time"]]
head = log[starts[1]].split()
rows = []
for line in log[starts[1] + 1 :]:
    if line.startswith("Loop time"):
        break
    rows.append([float(v) for v in line.split()])
temperature = np.array(rows)[:, head.index("Temp")].mean()
box = [float(v) for v in re.findall(r"orthogonal box = \(.*?\) to \((\S+) (\S+) (\S+)\)", "\n".join(log))[0]]
volume = float(np.prod(box))
p = np.loadtxt("pressure.dat", comments="#")


def autocorrelation(x):
    n = len(x)
    f = np.fft.rfft(x, 2 * n)
    return np.fft.irfft(f * np.conj(f))[:n] / (n - np.arange(n))


components = []
for k in (1, 2, 3):
    c = autocorrelation(p[:, k])[: LAGS + 1]
    integral = (c.sum() - 0.5 * (c[0] + c[-1])) * DT * EVERY
    components.append(float(volume / temperature * integral))
json.dump({"viscosity": float(np.mean(components)), "components": components}, open("result.json", "w"), indent=1)
PY
