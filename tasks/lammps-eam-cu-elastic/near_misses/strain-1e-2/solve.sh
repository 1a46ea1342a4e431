#!/bin/bash
# Near miss: strains of +/-1e-2 instead of +/-1e-3.
# Reference: the zero-pressure 4x4x4 fcc Cu cell (box/relax iso 0), strained by +/-1e-3 in xx and in xy (engineering
# shear strain), atoms minimized at each fixed strained box; centred differences of the stress (-pressure, bar).
set -euo pipefail
mkdir -p /app/output && cd /app/output
strain=0.01
for name in xx_plus xx_minus xy_plus xy_minus; do
  case $name in
    *_plus) eps=$strain ;;
    *_minus) eps=-$strain ;;
  esac
  case $name in
    xx_*) deform="change_box      all x scale \$(1.0+v_eps) remap" ;;
    xy_*) deform="change_box      all xy final \$(v_eps*v_L0) remap units box" ;;
  esac
  cat > $name.in <<LMP
units           metal
boundary        p p p
atom_style      atomic
lattice         fcc 3.615
region          box prism 0 4 0 4 0 4 0 0 0
create_box      1 box
create_atoms    1 box
pair_style      eam
pair_coeff      * * /app/inputs/Cu_u3.eam
neighbor        2.0 bin
thermo_style    custom step pe lx ly lz xy xz yz pxx pyy pzz pxy pxz pyz
thermo_modify   format float %.15g
min_style       cg
fix             relax all box/relax iso 0.0 vmax 0.001
minimize        0.0 1.0e-10 10000 100000
unfix           relax
variable        L0 equal \$(lx)
variable        eps equal $eps
$deform
minimize        0.0 1.0e-10 10000 100000
LMP
  lmp -in $name.in -log $name.log > /dev/null
done
python3 - <<'PY'
import json


def final(name):
    """The last thermo row of a log, by column name."""
    lines = open(f"{name}.log").read().splitlines()
    start = max(i for i, line in enumerate(lines) if line.split()[:1] == ["Step"])
    header, rows = lines[start].split(), []
    for line in lines[start + 1:]:
        try:
            rows.append([float(t) for t in line.split()])
        except ValueError:
            break
    return dict(zip(header, rows[-1]))


s = {name: final(name) for name in ("xx_plus", "xx_minus", "xy_plus", "xy_minus")}
bar_per_gpa = 1e4
two_eps = 2 * 0.01  # centred difference over +/-1e-3; stress = -pressure
c11 = -(s["xx_plus"]["Pxx"] - s["xx_minus"]["Pxx"]) / two_eps / bar_per_gpa
c12 = -(s["xx_plus"]["Pyy"] - s["xx_minus"]["Pyy"]) / two_eps / bar_per_gpa
c44 = -(s["xy_plus"]["Pxy"] - s["xy_minus"]["Pxy"]) / two_eps / bar_per_gpa  # engineering shear strain 2 eps_xy
json.dump({"c11_gpa": c11, "c12_gpa": c12, "c44_gpa": c44, "bulk_modulus_gpa": (c11 + 2 * c12) / 3},
          open("result.json", "w"), indent=1)
PY
