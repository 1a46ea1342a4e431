#!/bin/bash
# Near miss: invented numbers in the right format (no window is run).
# Umbrella sampling of the Na+-Cl- distance: per window a restrained minimization from conf.gro, 10 ps of restrained
# NVT, then WHAM (gmx wham) over all windows.
set -euo pipefail
export OMP_NUM_THREADS=1
mkdir -p /app/output/windows && cd /app/output
gmx -quiet make_ndx -f /app/inputs/conf.gro -o index.ndx <<< q
gmx -quiet select -s /app/inputs/conf.gro -on ions.ndx -select '"NA" resname NA; "CL" resname CL'
cat ions.ndx >> index.ndx && rm ions.ndx
pull() {  # the pull code of one window, centre $1 nm
    cat <<MDP

pull                 = yes
pull-ngroups         = 2
pull-ncoords         = 1
pull-group1-name     = NA
pull-group2-name     = CL
pull-coord1-type     = umbrella
pull-coord1-geometry = distance
pull-coord1-groups   = 1 2
pull-coord1-dim      = Y Y Y
pull-coord1-start    = no
pull-coord1-init     = $1
pull-coord1-rate     = 0
pull-coord1-k        = 10000
pull-nstxout         = 50
pull-nstfout         = 50
MDP
}
centers=(0.25 0.30 0.35 0.40 0.45 0.50 0.55 0.60 0.65)
: > tpr-files.dat; : > pullx-files.dat
for i in "${!centers[@]}"; do
    c=${centers[$i]}; w=windows/w$i
    { cat /app/inputs/em.mdp; pull "$c"; } > $w-em.mdp
    { cat /app/inputs/md.mdp; pull "$c"; } > $w.mdp
    gmx -quiet grompp -f $w-em.mdp -c /app/inputs/conf.gro -p /app/inputs/topol.top -n index.ndx -o $w-em.tpr -po $w-em.out.mdp -maxwarn 0
    # No MD: the run input is made from conf.gro, the pull output invented (Gaussian around the centre), the
    # "trajectory" the input frame written as xtc.
    gmx -quiet grompp -f $w.mdp -c /app/inputs/conf.gro -p /app/inputs/topol.top -n index.ndx -o $w.tpr -po $w.out.mdp -maxwarn 0
    python3 -c "
import random, sys
random.seed(int(sys.argv[2]))
c = float(sys.argv[1])
with open(sys.argv[3], 'w') as f:
    f.write('@    title \"Pull COM\"\n@    xaxis  label \"Time (ps)\"\n@    yaxis  label \"Position (nm)\"\n@TYPE xy\n')
    for k in range(201):
        f.write('%.4f\t%.5f\n' % (0.05 * k, c + random.gauss(0, 0.016)))
" "$c" "$i" ${w}_pullx.xvg
    gmx -quiet trjconv -f /app/inputs/conf.gro -s $w.tpr -o $w.xtc <<< 0
    echo "$w.tpr" >> tpr-files.dat; echo "${w}_pullx.xvg" >> pullx-files.dat
    rm -f $w-em.trr $w-em.edr $w-em.log $w-em.tpr $w-em.out.mdp $w.out.mdp $w.trr $w.cpt $w.edr
done
gmx -quiet wham -it tpr-files.dat -ix pullx-files.dat -o pmf.xvg -hist histo.xvg -unit kJ -b 2 -zprof0 0.6 -temp 300
python3 - "${centers[@]}" <<'PY'
import json, sys
rows = [tuple(map(float, l.split()[:2])) for l in open("pmf.xvg") if l.strip() and not l.startswith(("#", "@"))]
inside = [r for r in rows if r[0] <= 0.34]
x, g = min(inside, key=lambda r: r[1])
json.dump({"windows": [{"window": i, "center_nm": float(c), "tpr": f"windows/w{i}.tpr", "pullx": f"windows/w{i}_pullx.xvg",
                        "xtc": f"windows/w{i}.xtc"} for i, c in enumerate(sys.argv[1:])],
           "force_constant_kj_mol_nm2": 10000.0, "contact_minimum_nm": x, "contact_minimum_kj_mol": g}, open("pmf.json", "w"), indent=1)
print(open("pmf.json").read()[-200:])
PY
rm -f ./\#* windows/\#*
