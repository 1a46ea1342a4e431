#!/bin/bash
set -euo pipefail
mkdir -p /app/output && cd /app/output
# insane: -u sets the upper leaflet, -l the lower one once -u is given; -salt counts the counter-ions too.
insane -o bilayer.gro -p topol.top -pbc rectangular -x 10 -y 10 -z 10 \
    -u POPC:4 -u CHOL:1 -l POPC:3 -l POPS:1 -a 0.6 -sol W -salt 0 -charge auto
gmx -quiet check -f bilayer.gro
python3 - <<'PY'
import json
lines = open("bilayer.gro").read().splitlines()
n = int(lines[1])
atoms = [(int(l[0:5]), l[5:10].strip(), l[10:15].strip(), float(l[36:44])) for l in lines[2:2 + n]]
heads = [a for a in atoms if (a[1], a[2]) in {("POPC", "PO4"), ("POPS", "PO4"), ("CHOL", "ROH")}]
lipid_z = [a[3] for a in atoms if a[1] in ("POPC", "POPS", "CHOL")]
mid = sum(lipid_z) / len(lipid_z)
leaflets = {"upper": {}, "lower": {}}
for _, name, _, z in heads:
    side = leaflets["upper" if z > mid else "lower"]
    side[name] = side.get(name, 0) + 1
residues = []
for number, name, *_ in atoms:
    if not residues or residues[-1] != (number, name):
        residues.append((number, name))
names = [name for _, name in residues]
charge = {"POPS": -1, "NA+": 1, "CL-": -1}
json.dump({**leaflets, "water": names.count("W"), "sodium": names.count("NA+"), "chloride": names.count("CL-"),
           "net_charge": sum(charge.get(x, 0) for x in names)}, open("bilayer.json", "w"), indent=1)
print(open("bilayer.json").read())
PY
