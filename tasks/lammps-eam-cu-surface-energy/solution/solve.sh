#!/bin/bash
# Reference: a periodic 192-atom fcc Cu crystal (a = 3.615 A, z along [111], 12 layers) under Cu_u3.eam, run 0; the
# box extended to twice its height along z (two free (111) surfaces), the atoms relaxed at fixed box (cg, etol 0,
# ftol 1e-10); gamma = (E_slab - N e_bulk) / (2 A) in J/m^2.
set -euo pipefail
mkdir -p /app/output && cd /app/output
cat > in.surface <<'LMP'
units           metal
boundary        p p p
atom_style      atomic
variable        a equal 3.615
lattice         fcc ${a} orient x 1 -1 0 orient y 1 1 -2 orient z 1 1 1
region          box block 0 $(2*sqrt(2)*v_a) 0 $(sqrt(6)*v_a) 0 $(4*sqrt(3)*v_a) units box
create_box      1 box
create_atoms    1 box
pair_style      eam
pair_coeff      * * /app/inputs/Cu_u3.eam
neighbor        2.0 bin
thermo_style    custom step pe lx ly lz fnorm
thermo_modify   format float %.15g
run             0
variable        ebulk equal $(pe/atoms:%.17g)
change_box      all z final 0 $(8*sqrt(3)*v_a) units box
min_style       cg
minimize        0.0 1.0e-10 10000 100000
variable        gamma equal (pe-atoms*${ebulk})/(2*lx*ly)*16.0217663
print           "RESULT $(v_gamma:%.12f)"
write_data      slab.data
LMP
lmp -in in.surface -log log.lammps > lmp.out
python3 - <<'PY'
import json
gamma = float(open("lmp.out").read().split("RESULT ")[-1].split()[0])
json.dump({"surface_energy_j_per_m2": gamma}, open("result.json", "w"), indent=1)
PY
