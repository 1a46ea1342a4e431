#!/bin/bash
# Near miss (unrelaxed-fault): one mistake on top of the reference, see why.md.
# Reference: a 384-atom fcc Cu crystal (a = 3.615 A, x [11-2], y [-110], z [111], 24 layers) under Cu_u3.eam, the box
# doubled along z (two free (111) surfaces), relaxed along z only (setforce 0 0 NULL; cg, etol 0, ftol 1e-10); the
# upper 12 layers displaced by a/sqrt(6) along +x (the Shockley partial a/6 [11-2]) and relaxed the same way;
# SFE = (E_faulted - E_perfect) / (Lx Ly) in mJ/m^2.
set -euo pipefail
mkdir -p /app/output && cd /app/output
cat > in.sfe <<'LMP'
units           metal
boundary        p p p
atom_style      atomic
variable        a equal 3.615
lattice         fcc ${a} orient x 1 1 -2 orient y -1 1 0 orient z 1 1 1
region          box block 0 $(sqrt(6)*v_a) 0 $(2*sqrt(2)*v_a) 0 $(8*sqrt(3)*v_a) units box
create_box      1 box
create_atoms    1 box
pair_style      eam
pair_coeff      * * /app/inputs/Cu_u3.eam
neighbor        2.0 bin
thermo_style    custom step pe lx ly lz fnorm
thermo_modify   format float %.15g
change_box      all z final 0 $(16*sqrt(3)*v_a) units box
fix             zonly all setforce 0.0 0.0 NULL
min_style       cg
minimize        0.0 1.0e-10 10000 100000
variable        eperfect equal $(pe:%.17g)
write_data      perfect.data
region          upper block INF INF INF INF $(11.5*v_a/sqrt(3)) $(12*sqrt(3)*v_a) units box
group           upper region upper
displace_atoms  upper move $(v_a/sqrt(6)) 0 0 units box
run             0
variable        efaulted equal $(pe:%.17g)
variable        area equal lx*ly
variable        sfe equal (v_efaulted-v_eperfect)/v_area*16021.7663
print           "RESULT $(v_eperfect:%.12f) $(v_efaulted:%.12f) $(v_area:%.12f) $(v_sfe:%.12f) $(count(upper))"
write_data      faulted.data
LMP
lmp -in in.sfe -log log.lammps > lmp.out
python3 - <<'PY'
import json
fields = open("lmp.out").read().split("RESULT ")[-1].split()
e_perfect, e_faulted, area, sfe = (float(v) for v in fields[:4])
result = {
    "e_perfect_ev": e_perfect,
    "e_faulted_ev": e_faulted,
    "area_angstrom2": area,
    "stacking_fault_energy_mj_per_m2": sfe,
}
json.dump(result, open("result.json", "w"), indent=1)
PY
