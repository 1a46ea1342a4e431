#!/bin/bash
# Reference: perfect 4x4x4 fcc Cu cell (a = 3.615 A) under Cu_u3.eam, run 0; delete one atom; relax the atoms at
# fixed box (cg, etol 0, ftol 1e-10); E_v = E(N-1) - (N-1)/N E(N).
set -euo pipefail
mkdir -p /app/output && cd /app/output
cat > in.vacancy <<'LMP'
units           metal
boundary        p p p
atom_style      atomic
lattice         fcc 3.615
region          box block 0 4 0 4 0 4
create_box      1 box
create_atoms    1 box
pair_style      eam
pair_coeff      * * /app/inputs/Cu_u3.eam
neighbor        2.0 bin
thermo_style    custom step pe press lx ly lz fnorm
thermo_modify   format float %.15g
run             0
variable        natoms equal atoms
variable        eperfect equal pe
variable        N equal ${natoms}
variable        EN equal ${eperfect}
group           gone id 1
delete_atoms    group gone
min_style       cg
minimize        0.0 1.0e-10 10000 100000
variable        ev equal pe-(${N}-1)/${N}*${EN}
print           "RESULT ${ev}"
write_data      relaxed.data
LMP
lmp -in in.vacancy -log log.lammps > lmp.out
python3 - <<'PY'
import json
ev = float(open("lmp.out").read().split("RESULT ")[-1].split()[0])
json.dump({"vacancy_formation_energy_ev": ev}, open("result.json", "w"), indent=1)
PY
