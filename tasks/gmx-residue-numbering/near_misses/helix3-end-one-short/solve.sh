#!/bin/bash
set -euo pipefail
export OMP_NUM_THREADS=1
mkdir -p /app/output && cd /app/output
grep -v HOH /app/inputs/1ENH.pdb > /tmp/protein.pdb
gmx -quiet pdb2gmx -f /tmp/protein.pdb -o conf.gro -p topol.top -i posre.itp -ff amber99sb-ildn -water tip3p -ignh -renum
python3 - <<'PY'
pdb = []
for line in open("/tmp/protein.pdb"):
    if line.startswith("ATOM") and (not pdb or pdb[-1][0] != int(line[22:26])):
        pdb.append((int(line[22:26]), line[17:20]))
with open("/app/output/residue_map.csv", "w") as handle:
    handle.write("pdb_resid,gro_resid,resname\n" + "".join(f"{p},{i + 1},{name}\n" for i, (p, name) in enumerate(pdb)))
first, last = next(i + 1 for i, (p, _) in enumerate(pdb) if p == 42), next(i + 1 for i, (p, _) in enumerate(pdb) if p == 55)
open("/tmp/range", "w").write(f"{first} {last}\n")
PY
read first last < /tmp/range
gmx -quiet select -s conf.gro -on index.ndx -select "\"Helix3_backbone\" resnr $first to $last and name N CA C O"
rm -f ./\#*
