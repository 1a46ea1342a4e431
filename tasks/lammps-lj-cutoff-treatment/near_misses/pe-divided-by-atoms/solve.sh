#!/bin/bash
# Near miss: pe divided by the atom count, as if units lj printed the total energy (it prints it per atom).
# Reference: a perfect fcc LJ crystal (rho* 1.0, 8x8x8 cells, 2048 atoms), run 0 under lj/cut 2.5 (plain), 2.5
# shifted, 2.5 with the tail correction and 6.0 (plain), every pair_modify setting stated before each run (LAMMPS
# keeps shift and tail across a pair_style of the same style); errors against the 6.0 run and the neighbour count
# n = 2 (E_shifted - E_cut) / (-V(2.5)).
set -euo pipefail
mkdir -p /app/output && cd /app/output
cat > in.cutoff <<'LMP'
units           lj
atom_style      atomic
boundary        p p p
lattice         fcc 1.0
region          box block 0 8 0 8 0 8
create_box      1 box
create_atoms    1 box
mass            1 1.0
thermo_style    custom step atoms vol pe press
thermo_modify   format float %.15g
pair_style      lj/cut 2.5
pair_coeff      1 1 1.0 1.0
pair_modify     shift no tail no
run             0
print           "TREATMENT cut $(pe:%.15g) $(press:%.15g)"
pair_modify     shift yes tail no
run             0
print           "TREATMENT shifted $(pe:%.15g) $(press:%.15g)"
pair_modify     shift no tail yes
run             0
print           "TREATMENT tail $(pe:%.15g) $(press:%.15g)"
pair_style      lj/cut 6.0
pair_coeff      1 1 1.0 1.0
pair_modify     shift no tail no
run             0
print           "TREATMENT long $(pe:%.15g) $(press:%.15g)"
LMP
lmp -in in.cutoff -log log.lammps > lmp.out
python3 - <<'PY'
import json

values = {}
for line in open("lmp.out"):
    if line.startswith("TREATMENT "):
        _, name, pe, press = line.split()
        values[name] = {"pe": float(pe) / 2048, "press": float(press)}
result = dict(values)
result["error"] = {
    name: {key: values[name][key] - values["long"][key] for key in ("pe", "press")}
    for name in ("cut", "shifted", "tail")
}
v_rc = 4 * (2.5**-12 - 2.5**-6)
result["neighbours_within_cutoff"] = round(2 * (values["shifted"]["pe"] - values["cut"]["pe"]) / -v_rc)
json.dump(result, open("result.json", "w"), indent=1)
PY
