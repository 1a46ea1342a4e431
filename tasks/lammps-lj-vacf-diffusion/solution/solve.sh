#!/bin/bash
# Reference: 500 LJ atoms at rho* 0.8442, T* 0.722; NVT (Nose-Hoover) 5000 steps, then 10000 NVE production steps
# with velocities dumped every 5 steps and unwrapped coordinates every 100; D from the VACF (1/3 of its integral over
# 0-5 tau) and from the MSD (slope / 6 over 5-20 tau), both averaged over every time origin.
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
thermo_style    custom step time temp press pe ke etotal
thermo_modify   format float %.10g
thermo          100
fix             nvt all nvt temp 0.722 0.722 0.5
run             5000
unfix           nvt
reset_timestep  0
fix             nve all nve
dump            vel all custom 5 vel.lammpstrj id vx vy vz
dump_modify     vel format float %.8g sort id
dump            pos all custom 100 pos.lammpstrj id type xu yu zu
dump_modify     pos format float %.10g sort id
run             10000
LMP
lmp -in in.lj -log log.lammps -screen none
python3 - <<'PY'
import json

import numpy as np

DT, VEL_EVERY, POS_EVERY, LAGS = 0.005, 5, 100, 200


def frames(path, columns):
    """The dump's frames as an array (frames, atoms, columns), atoms sorted by id."""
    lines = open(path).read().split("\n")
    atoms = int(lines[3])
    size = 9 + atoms
    count = len(lines) // size
    body = [line for i in range(count) for line in lines[i * size + 9 : (i + 1) * size]]
    data = np.array(" ".join(body).split(), dtype=float).reshape(count, atoms, len(columns))
    return data[:, :, columns.index("vx") if "vx" in columns else columns.index("xu") :]


v = frames("vel.lammpstrj", ["id", "vx", "vy", "vz"])
n = len(v)
spectrum = np.fft.rfft(v, 2 * n, axis=0)
z = np.fft.irfft(spectrum * np.conj(spectrum), axis=0)[:n].sum(axis=2).mean(axis=1) / (n - np.arange(n))
z = z[: LAGS + 1]
t_v = np.arange(LAGS + 1) * DT * VEL_EVERY
np.savetxt("vacf.dat", np.column_stack([t_v, z]), fmt="%.10g", header="t (tau)  Z(t) (sigma^2/tau^2)")
d_vacf = (z.sum() - 0.5 * (z[0] + z[-1])) * DT * VEL_EVERY / 3.0

r = frames("pos.lammpstrj", ["id", "type", "xu", "yu", "zu"])
m = len(r)
msd = np.array([((r[k:] - r[: m - k]) ** 2).sum(axis=2).mean() for k in range(m)])
t_r = np.arange(m) * DT * POS_EVERY
np.savetxt("msd.dat", np.column_stack([t_r, msd]), fmt="%.10g", header="t (tau)  MSD (sigma^2)")
window = (t_r >= 5.0 - 1e-9) & (t_r <= 20.0 + 1e-9)
d_msd = np.polyfit(t_r[window], msd[window], 1)[0] / 6.0
json.dump({"D_vacf": float(d_vacf), "D_msd": float(d_msd)}, open("result.json", "w"), indent=1)
PY
