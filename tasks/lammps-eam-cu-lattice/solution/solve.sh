#!/bin/bash
# Reference: box/relax iso 0.0 + conjugate-gradient minimization of a 4x4x4 fcc Cu cell under Cu_u3.eam.
set -euo pipefail
mkdir -p /app/output && cd /app/output
cat > in.lattice <<'LMP'
units           metal
boundary        p p p
atom_style      atomic
lattice         fcc 3.61
region          box block 0 4 0 4 0 4
create_box      1 box
create_atoms    1 box
pair_style      eam
pair_coeff      * * /app/inputs/Cu_u3.eam
neighbor        2.0 bin
thermo_style    custom step pe lx ly lz press pxx pyy pzz
thermo_modify   format float %.15g
fix             relax all box/relax iso 0.0 vmax 0.001
min_style       cg
minimize        0.0 1.0e-10 10000 100000
unfix           relax
run             0
variable        a equal lx/4
variable        ecoh equal pe/atoms
print           "RESULT ${a} ${ecoh}"
write_data      relaxed.data
LMP
lmp -in in.lattice -log log.lammps > lmp.out
python3 - <<'PY'
import json
a, e = open("lmp.out").read().split("RESULT ")[-1].split()[:2]
json.dump({"lattice_constant_angstrom": float(a), "cohesive_energy_ev_per_atom": float(e)},
          open("result.json", "w"), indent=1)
PY
