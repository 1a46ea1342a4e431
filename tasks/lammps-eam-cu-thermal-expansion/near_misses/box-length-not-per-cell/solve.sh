#!/bin/bash
# Reference: 4x4x4 fcc Cu (256 atoms) under Cu_u3.eam, Nose-Hoover NPT at 300, 600 and 900 K and 0 bar
# (Tdamp 0.1 ps, Pdamp 1 ps, iso), 1 fs steps, 10000 steps each; a(T) = mean (lx+ly+lz)/3/4 over steps 5000-10000;
# alpha = least-squares slope of a(T) / a(300 K).
set -euo pipefail
mkdir -p /app/output && cd /app/output
cat > in.expansion <<'LMP'
units           metal
boundary        p p p
atom_style      atomic
lattice         fcc 3.615
region          box block 0 4 0 4 0 4
create_box      1 box
create_atoms    1 box
pair_style      eam
pair_coeff      * * /app/inputs/Cu_u3.eam
neighbor        1.0 bin
timestep        0.001
velocity        all create $(2.0*v_T) 4928 mom yes rot yes dist gaussian
fix             1 all npt temp ${T} ${T} 0.1 iso 0.0 0.0 1.0
thermo_style    custom step temp pe press lx ly lz
thermo          50
run             10000
LMP
for T in 300 600 900; do
    lmp -in in.expansion -var T $T -log log.$T.lammps > /dev/null
done
python3 - <<'PY'
import json
a = {}
for T in (300, 600, 900):
    lines = open(f"log.{T}.lammps").read().splitlines()
    head = max(i for i, line in enumerate(lines) if line.split()[:1] == ["Step"])
    columns = lines[head].split()
    rows = []
    for line in lines[head + 1:]:
        if line.startswith("Loop time"):
            break
        rows.append([float(x) for x in line.split()])
    production = [r for r in rows if r[0] >= 5000]
    lx, ly, lz = (columns.index(c) for c in ("Lx", "Ly", "Lz"))
    a[T] = sum((r[lx] + r[ly] + r[lz]) / 3 for r in production) / len(production)
ts = sorted(a)
tm = sum(ts) / len(ts)
am = sum(a[t] for t in ts) / len(ts)
slope = sum((t - tm) * (a[t] - am) for t in ts) / sum((t - tm) ** 2 for t in ts)
json.dump({"lattice_constant_angstrom": {str(t): a[t] for t in ts}, "alpha_per_k": slope / a[300]},
          open("result.json", "w"), indent=1)
PY
