#!/bin/bash
# Reference: rigid SPC/E (q_O -0.8476 e, q_H +0.4238 e; O-O 0.1553 kcal/mol, 3.166 A; SHAKE 1.0 A, 109.47 deg),
# lj/cut/coul/long 10 A with the tail correction, PPPM 1e-4, Nose-Hoover NVT at 298 K (100 fs), 2 fs steps, 5000
# steps from the lattice, a dump every 50 steps; O-O g(r) over the frames at steps 2500-5000 (51 frames).
set -euo pipefail
mkdir -p /app/output && cd /app/output
cat > in.rdf <<'IN'
# SPC/E water, 216 molecules at 0.997 g/cm3: 10 ps of NVT at 298 K, O-O g(r) from the last 5 ps
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
velocity        all create 298.0 4928 mom yes rot yes dist gaussian
timestep        2.0
fix             1 all shake 1.0e-4 100 0 b 1 a 1
fix             2 all nvt temp 298.0 298.0 100.0
thermo_style    custom step temp press pe
thermo          50
dump            1 all custom 50 dump.water id mol type x y z
dump_modify     1 format float %.10g sort id
run             5000
IN
lmp -in in.rdf -log log.lammps > /dev/null
python3 - <<'PY'
import json
import numpy as np

DR, RMAX = 0.05, 8.0
edges = np.arange(0.0, RMAX + DR / 2, DR)
hist, frames, volume, n_o = np.zeros(len(edges) - 1), 0, None, None
with open("dump.water") as dump:
    lines = dump.read().splitlines()
k = 0
while k < len(lines):
    step = int(lines[k + 1])
    natoms = int(lines[k + 3])
    box = np.array([[float(v) for v in lines[k + 5 + d].split()[:2]] for d in range(3)])
    columns = lines[k + 8].split()[2:]
    atoms = np.array([[float(v) for v in line.split()] for line in lines[k + 9 : k + 9 + natoms]])
    k += 9 + natoms
    if step < 2500:
        continue  # equilibration
    lengths = box[:, 1] - box[:, 0]
    oxygen = atoms[atoms[:, columns.index("type")] == 1][:, [columns.index(c) for c in ("x", "y", "z")]]
    d = oxygen[:, None, :] - oxygen[None, :, :]
    d -= lengths * np.round(d / lengths)
    r = np.sqrt((d**2).sum(axis=-1))[~np.eye(len(oxygen), dtype=bool)]  # ordered pairs i != j
    hist += np.histogram(r, bins=edges)[0]
    frames, volume, n_o = frames + 1, float(np.prod(lengths)), len(oxygen)
rho = n_o / volume
shell = 4.0 / 3.0 * np.pi * (edges[1:] ** 3 - edges[:-1] ** 3)
g = hist / (frames * n_o * rho * shell)
centers = (edges[1:] + edges[:-1]) / 2
np.savetxt("rdf.dat", np.column_stack([centers, g]), fmt="%.10g", header="r_angstrom g_OO")
peak = int(np.argmax(g))
window = np.flatnonzero((centers > centers[peak]) & (centers <= 4.0))
minimum = int(window[np.argmin(g[window])])
upto = int(np.flatnonzero(centers <= 3.5)[-1])  # the textbook first-shell radius
coordination = float(rho * np.sum(g[: upto + 1] * shell[: upto + 1]))
json.dump({
    "first_peak_r_angstrom": float(centers[peak]),
    "first_peak_g": float(g[peak]),
    "first_minimum_r_angstrom": float(centers[minimum]),
    "coordination_number": coordination,
}, open("result.json", "w"), indent=1)
PY
