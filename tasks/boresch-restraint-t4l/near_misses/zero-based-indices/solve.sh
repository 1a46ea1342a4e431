#!/bin/bash
# Reference: MDRestraintsGenerator's ligand and host searches over the whole trajectory, its Boresch restraint
# (the anchor set of least summed variance, written at the frame closest to the mean) and its analytical
# standard-state correction at the contracted force constants and temperature.
set -euo pipefail
mkdir -p /app/output
cd /app/output
python3 -W ignore - <<'PY'
import json
import MDAnalysis as mda
from MDRestraintsGenerator import search
from MDRestraintsGenerator.restraints import FindBoreschRestraint
from MDRestraintsGenerator.tests.datafiles import T4_TPR, T4_XTC

u = mda.Universe(T4_TPR, T4_XTC)
ligand_atoms = search.find_ligand_atoms(u, l_selection="resname LIG and not name H*")
atom_set = []
for l_atoms in ligand_atoms:
    hosts = search.FindHostAtoms(u, l_atoms[0], p_selection="protein and name CA")
    hosts.run()
    atom_set.extend((l_atoms, p) for p in hosts.host_atoms)
boresch = FindBoreschRestraint(u, atom_set)
boresch.run()
r = boresch.restraint
r.write(path=".", force_constant=10.0)   # BoreschRestraint.top, ClosestRestraintFrame.gro
dg = r.standard_state(force_constant=10.0, temperature=298.15)
frame = int(r.min_frame)
anchors = [int(i) + 1 for i in list(r.dihedrals[0].atomgroup.atoms.ix[:3]) + list(r.dihedrals[2].atomgroup.atoms.ix[1:])]
# l3 l2 l1 P1 ... : the first dihedral is (l3, l2, l1, P1), the third (l1, P1, P2, P3)
l3, l2, l1 = (int(i) + 1 for i in r.dihedrals[0].atomgroup.atoms.ix[:3])
p1, p2, p3 = (int(i) + 1 for i in r.dihedrals[2].atomgroup.atoms.ix[1:])
json.dump({
    "ligand_anchors": [l1, l2, l3], "protein_anchors": [p1, p2, p3], "frame": frame,
    "r0_nm": float(r.bond.values[frame]) / 10, "theta_a_deg": float(r.angles[0].values[frame]),
    "theta_b_deg": float(r.angles[1].values[frame]), "phi_a_deg": float(r.dihedrals[0].values[frame]),
    "phi_b_deg": float(r.dihedrals[1].values[frame]), "phi_c_deg": float(r.dihedrals[2].values[frame]),
    "k_bond_kj_mol_nm2": 4184.0, "k_angle_kj_mol_rad2": 41.84,
    "dg_restraint_kcal_mol": float(dg),
}, open("restraint.json", "w"), indent=1)
PY
cp BoreschRestraint.top boresch.top
# The mistake: MDAnalysis's 0-based atom indices written as the GROMACS atom numbers (one off everywhere).
python3 - <<'PY'
import json, re
d = json.load(open("restraint.json"))
d["ligand_anchors"] = [i - 1 for i in d["ligand_anchors"]]
d["protein_anchors"] = [i - 1 for i in d["protein_anchors"]]
json.dump(d, open("restraint.json", "w"), indent=1)
out = []
for line in open("boresch.top"):
    parts = line.split()
    if parts and not line.lstrip().startswith((";", "[")):
        n = {7: 2, 8: 3, 9: 4}[len(parts)]
        parts[:n] = [str(int(p) - 1) for p in parts[:n]]
        line = "  " + "  ".join(parts) + "\n"
    out.append(line)
open("boresch.top", "w").write("".join(out))
PY
