#!/bin/bash
# Near miss: the radius of gyration computed by hand from the whole frames with every atom weighted equally
# (the geometric radius, as mdtraj's compute_rg gives it) instead of mass-weighted.
set -euo pipefail
export OMP_NUM_THREADS=1
mkdir -p /app/output && cd /app/output
echo Protein | gmx -quiet trjconv -s /app/inputs/md.tpr -f /app/inputs/traj.xtc -o protein_whole.xtc -pbc mol
echo Protein | gmx -quiet trjconv -s /app/inputs/md.tpr -f protein_whole.xtc -o /tmp/frames.gro
gmx -quiet distance -s /app/inputs/md.tpr -f protein_whole.xtc -oall /tmp/ends.xvg -xvg none -nopbc \
    -select 'resnr 1 and name CA plus resnr 10 and name CA'
python3 - <<'PY'
import json

import numpy as np

lines = open("/tmp/frames.gro").read().splitlines()
n = int(lines[1])
rg = []
for start in range(0, len(lines), n + 3):
    xyz = np.array([[float(l[20:28]), float(l[28:36]), float(l[36:44])] for l in lines[start + 2 : start + 2 + n]])
    rg.append(float(np.sqrt(((xyz - xyz.mean(axis=0)) ** 2).sum(axis=1).mean())))
ends = [line.split()[:2] for line in open("/tmp/ends.xvg") if line.strip()]
with open("rg.csv", "w") as handle:
    handle.write("time_ps,rg_nm,end_to_end_nm\n")
    handle.writelines(f"{t},{r:.5f},{e}\n" for r, (t, e) in zip(rg, ends))
json.dump({"frames": len(rg), "mean_rg_nm": sum(rg) / len(rg),
           "mean_end_to_end_nm": sum(float(e) for _, e in ends) / len(ends)}, open("summary.json", "w"))
PY
