#!/bin/bash
set -euo pipefail
export OMP_NUM_THREADS=1
mkdir -p /app/output /tmp/gas /tmp/water
(cd /tmp/gas && xtb /app/inputs/methanol.xyz --gfn 2 --sp --chrg 0 --uhf 0 > xtb.log)
(cd /tmp/water && xtb /app/inputs/methanol.xyz --gfn 2 --sp --chrg 0 --uhf 0 --alpb water > xtb.log)
python3 - <<'PY'
import json, re
def parse(path):
    text = open(path).read()
    dipole = re.search(r"molecular dipole:.*?full:\s+\S+\s+\S+\s+\S+\s+(\S+)", text, re.S).group(1)
    gsolv = re.search(r"-> Gsolv\s+(-?\d+\.\d+) Eh", text)
    return (float(re.findall(r"TOTAL ENERGY\s+(-?\d+\.\d+) Eh", text)[-1]), float(dipole),
            float(re.findall(r"HOMO-LUMO GAP\s+(-?\d+\.\d+) eV", text)[-1]), float(gsolv.group(1)) if gsolv else None)
gas, water = parse("/tmp/gas/xtb.log"), parse("/tmp/water/xtb.log")
json.dump({"gas_energy_eh": gas[0], "water_energy_eh": water[0], "gsolv_kcal_mol": water[3],
           "gas_dipole_debye": gas[1], "water_dipole_debye": water[1], "gas_gap_ev": gas[2], "water_gap_ev": water[2]},
          open("/app/output/methanol.json", "w"), indent=1)
PY
cat /app/output/methanol.json
