#!/bin/bash
# Reference: the Kremer-Grest melt of /app/inputs/kg_melt.data (40 chains x 20 beads, density 0.85): FENE bonds
# (K 30, R0 1.5), WCA pairs (lj/cut 2^(1/6), shifted), special_bonds lj 0 1 1; Langevin (T 1.0, damp 2.0) with
# fix nve, timestep 0.01; 5000 steps of equilibration, 20000 of production with a dump of unwrapped coordinates
# every 500 steps; <R^2>, <Rg^2> and their ratio from the dump's frames at steps 500-20000 (numpy, per chain).
set -euo pipefail
SEED=${SEED:-2024}
mkdir -p /app/output && cd /app/output
cat > in.kg <<LMP
units           lj
atom_style      bond
read_data       /app/inputs/kg_melt.data
bond_style      fene
bond_coeff      1 30.0 1.5 1.0 1.0
special_bonds   lj 0.0 1.0 1.0
pair_style      lj/cut 1.122462048
pair_coeff      1 1 1.0 1.0 1.122462048
pair_modify     shift yes
neighbor        0.4 bin
neigh_modify    every 1 delay 0 check yes
velocity        all create 1.0 $SEED dist gaussian mom yes
timestep        0.01
fix             integrate all nve
fix             thermostat all langevin 1.0 1.0 2.0 $((SEED + 1))
thermo_style    custom step temp pe ebond epair press
thermo          500
run             5000
reset_timestep  0
dump            chains all custom 500 chains.lammpstrj id mol x y z
dump_modify     chains format float %.10g sort id
run             20000
LMP
lmp -in in.kg -log log.lammps -screen none
python3 - <<'PY'
import json

import numpy as np


def frames(path):
    """[(step, {column: array})] of a LAMMPS text dump, atoms in id order."""
    lines, out, i = open(path).read().split("\n"), [], 0
    while i < len(lines) and lines[i].startswith("ITEM: TIMESTEP"):
        step, n = int(lines[i + 1]), int(lines[i + 3])
        names = lines[i + 8].split()[2:]
        data = np.array([row.split() for row in lines[i + 9 : i + 9 + n]], dtype=float)
        data = data[np.argsort(data[:, names.index("id")])]
        out.append((step, {name: data[:, k] for k, name in enumerate(names)}))
        i += 9 + n
    return out


r2, rg2 = [], []
for step, columns in frames("chains.lammpstrj"):
    if step == 0:  # the production's starting configuration: not averaged
        continue
    xyz = np.column_stack([columns["x"], columns["y"], columns["z"]])
    for mol in np.unique(columns["mol"]):
        chain = xyz[columns["mol"] == mol]  # beads in id order: first end to last
        r2.append(((chain[-1] - chain[0]) ** 2).sum())
        rg2.append(((chain - chain.mean(axis=0)) ** 2).sum(axis=1).mean())
R2, Rg2 = float(np.mean(r2)), float(np.mean(rg2))
json.dump({"R2": R2, "Rg2": Rg2, "ratio": R2 / Rg2}, open("result.json", "w"), indent=1)
PY
