#!/bin/bash
set -euo pipefail
mkdir -p /app/output /tmp/propka && cd /tmp/propka
cp /app/inputs/1PRB.pdb .
propka3 1PRB.pdb > propka.log
python3 - <<'PY'
import json, re
text = open("/tmp/propka/1PRB.pka").read()
summary = text.split("SUMMARY OF THIS PREDICTION")[1].split("-----")[0].splitlines()[2:]
rows = []
for line in summary:
    fields = line.split()
    if len(fields) >= 5:
        rows.append((fields[0], int(fields[1]), fields[2], float(fields[3]), float(fields[4])))
with open("/app/output/pka.csv", "w") as handle:
    handle.write("group,residue,chain,pka,model_pka,shift\n")
    for g, r, c, p, m in rows:
        handle.write(f"{g},{r},{c},{p:.2f},{m:.2f},{m - p:.2f}\n")
top = max(rows, key=lambda row: abs(row[3] - row[4]))
his = next(row for row in rows if row[0] == "HIS" and row[1] == 52)
pi = float(re.search(r"The pI is\s+([\d.]+) \(folded\)", text).group(1))
json.dump({"most_shifted": {"group": top[0], "residue": top[1], "shift": round(top[4] - top[3], 2)},
           "isoelectric_point_folded": pi, "his52_charged_at_ph7": his[3] > 7.0}, open("/app/output/summary.json", "w"), indent=1)
PY
