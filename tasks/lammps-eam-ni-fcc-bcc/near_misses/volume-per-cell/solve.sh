#!/bin/bash
# Near miss: the volume of the cubic conventional cell (4 or 2 atoms) used with the energy per atom.
# Reference: 22 run-0 points of perfect Ni_u3 crystals (fcc 3x3x3 at a = 3.42-3.62 A, bcc 4x4x4 at a = 2.70-2.90 A)
# in one input; per structure the linear third-order Birch-Murnaghan fit E(x) = c0 + c1 x + c2 x^2 + c3 x^3,
# x = V^(-2/3), its stationary point V0, E0, B0 = V0 E''(V0) in GPa, a0 from V0 and dE = E0(bcc) - E0(fcc).
set -euo pipefail
mkdir -p /app/output && cd /app/output
cat > in.eos <<'LMP'
variable        s index fcc bcc
label           structure
variable        a index 3.42 3.44 3.46 3.48 3.50 3.52 3.54 3.56 3.58 3.60 3.62
if              "${s} == bcc" then "variable a delete" &
                "variable a index 2.70 2.72 2.74 2.76 2.78 2.80 2.82 2.84 2.86 2.88 2.90"
variable        n equal 3
if              "${s} == bcc" then "variable n delete" "variable n equal 4"
label           point
clear
units           metal
atom_style      atomic
boundary        p p p
lattice         ${s} ${a}
region          box block 0 ${n} 0 ${n} 0 ${n}
create_box      1 box
create_atoms    1 box
pair_style      eam
pair_coeff      * * /app/inputs/Ni_u3.eam
thermo_style    custom step atoms vol pe press
thermo_modify   format float %.15g
run             0
print           "EOS ${s},${a},$(vol/atoms:%.15g),$(pe/atoms:%.15g)"
next            a
jump            SELF point
next            s
jump            SELF structure
LMP
lmp -in in.eos -log log.lammps > lmp.out
python3 - <<'PY'
import json

import numpy as np

EV_A3_GPA = 160.21766
rows = [line.split(None, 1)[1].strip().split(",") for line in open("lmp.out") if line.startswith("EOS ")]
with open("eos.csv", "w") as out:
    out.write("structure,a,volume_per_atom,energy_per_atom\n")
    for s, a, v, e in rows:
        out.write(f"{s},{a},{float(a) ** 3},{e}\n")
result = {}
for structure, per_cell in (("fcc", 4), ("bcc", 2)):
    v = np.array([float(r[2]) * per_cell for r in rows if r[0] == structure])
    e = np.array([float(r[3]) for r in rows if r[0] == structure])
    x = v ** (-2 / 3)
    c = np.polyfit(x, e, 3)
    roots = np.roots(np.polyder(c))
    x0 = [r.real for r in roots if abs(r.imag) < 1e-12 and x.min() < r.real < x.max()][0]
    v0 = x0**-1.5
    dxdv = -2 / 3 * v0 ** (-5 / 3)  # dE/dx = 0 at x0, so d2E/dV2 = E''(x0) (dx/dV)^2
    b0 = v0 * np.polyval(np.polyder(c, 2), x0) * dxdv**2 * EV_A3_GPA
    e0 = np.polyval(c, x0)
    result[structure] = {"a0": v0 ** (1 / 3), "v0": v0, "e_coh": -e0, "b0_gpa": b0}
result["delta_e_bcc_fcc"] = result["fcc"]["e_coh"] - result["bcc"]["e_coh"]
json.dump(result, open("result.json", "w"), indent=1)
PY
