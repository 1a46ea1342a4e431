#!/bin/bash
# Conventions chosen and stated: molarity (mol per litre of the box), a 4.0 nm cube, pure water's density
# (0.997 g/cm^3) for the water count,
# the urea added on top, packmol's tolerance 2.0 A, and a 1 A margin at every box face so that no
# two molecules overlap across the periodic boundaries.
set -euo pipefail
mkdir -p /app/output && cd /app/output
L_NM=4.0  # the cube's edge (nm)
read n_urea n_water <<< "$(python3 -c '
import sys
N_A, L_nm = 6.02214076e23, float(sys.argv[1])
V_cm3 = (L_nm * 1e-7) ** 3
urea = round(1.0 * N_A * V_cm3 / 1000)
water = round(0.997 * V_cm3 * N_A / 18.015)  # the box filled with pure water at its density, urea added
print(urea, water)' "$L_NM")"
read L_A HI <<< "$(python3 -c 'import sys; L = float(sys.argv[1]) * 10; print(f"{L:g} {L - 1:g}.")' "$L_NM")"
cat > packmol.inp <<INP
tolerance 2.0
filetype pdb
output packed.pdb
seed 2025
structure /app/inputs/urea.pdb
  number $n_urea
  inside box 1. 1. 1. $HI $HI $HI
end structure
structure /app/inputs/water.pdb
  number $n_water
  inside box 1. 1. 1. $HI $HI $HI
end structure
INP
packmol < packmol.inp > packmol.log
grep -q "Success" packmol.log
{ printf 'CRYST1%9.3f%9.3f%9.3f%7.2f%7.2f%7.2f P 1           1\n' "$L_A" "$L_A" "$L_A" 90 90 90; grep -E '^(ATOM|HETATM)' packed.pdb; echo END; } > box.pdb
rm packed.pdb
gmx -quiet editconf -f box.pdb -o box.gro
python3 - "$n_urea" "$n_water" "$L_NM" <<'PY'
import json, sys
urea, water, L_nm = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
N_A, V_cm3 = 6.02214076e23, (L_nm * 1e-7) ** 3
json.dump({"convention": "molar", "concentration": urea / (N_A * V_cm3 / 1000), "unit": "mol/L",
           "box_nm": [L_nm, L_nm, L_nm], "n_urea": urea, "n_water": water, "tolerance_angstrom": 2.0,
           "density_g_cm3": (urea * 60.056 + water * 18.015) / (N_A * V_cm3)}, open("build.json", "w"), indent=1)
print(open("build.json").read())
PY
