#!/bin/bash
set -euo pipefail
export OMP_NUM_THREADS=1
mkdir -p /app/output && cd /app/output
# -pbc mol: trjconv reads the bonds from md.tpr and puts every molecule back in one piece; the distance is then
# measured within the whole peptide (-nopbc: the minimum image would fold an end-to-end distance over half the box)
echo Protein | gmx -quiet trjconv -s /app/inputs/md.tpr -f /app/inputs/traj.xtc -o protein_whole.xtc -pbc mol
echo Protein | gmx -quiet gyrate -s /app/inputs/md.tpr -f protein_whole.xtc -o /tmp/gyrate.xvg -xvg none
gmx -quiet distance -s /app/inputs/md.tpr -f protein_whole.xtc -oall /tmp/ends.xvg -xvg none \
    -select 'resnr 1 and name CA plus resnr 10 and name CA'
python3 - <<'PY'
import json

rg = [line.split()[:2] for line in open("/tmp/gyrate.xvg") if line.strip()]
ends = [line.split()[:2] for line in open("/tmp/ends.xvg") if line.strip()]
assert len(rg) == len(ends) and all(float(a[0]) == float(b[0]) for a, b in zip(rg, ends))
with open("rg.csv", "w") as handle:
    handle.write("time_ps,rg_nm,end_to_end_nm\n")
    handle.writelines(f"{t},{r},{e[1]}\n" for (t, r), e in zip(rg, ends))
summary = {
    "frames": len(rg),
    "mean_rg_nm": sum(float(r) for _, r in rg) / len(rg),
    "mean_end_to_end_nm": sum(float(e) for _, e in ends) / len(ends),
}
json.dump(summary, open("summary.json", "w"), indent=1)
print(summary)
PY
rm -f ./\#*
