#!/bin/bash
set -euo pipefail
export OMP_NUM_THREADS=1
mkdir -p /app/output && cd /app/output
python3 - <<'PY'
import openmm
import parmed
from openmm import app

pdb = app.PDBFile("/app/inputs/peptide.pdb")
system = openmm.XmlSerializer.deserialize(open("/app/inputs/system.xml").read())
structure = parmed.openmm.load_topology(pdb.topology, system, xyz=pdb.positions)
structure.box = [50.0, 50.0, 50.0, 90.0, 90.0, 90.0]  # angstrom
structure.save("/app/output/topol.top", overwrite=True)
# Amber's 1-4 electrostatics "restored" to full strength: the [ defaults ] line's fudgeQQ set to 1
import re
top = open("/app/output/topol.top").read()
top = re.sub(r"(\[ defaults \]\n;[^\n]*\n\s*1\s+2\s+no\s+\S+\s+)(\S+)", r"\g<1>1.0", top, count=1)
open("/app/output/topol.top", "w").write(top)
structure.save("/app/output/conf.gro", overwrite=True)
PY
mkdir -p /tmp/rerun && cd /tmp/rerun
printf 'integrator = md\nnsteps = 0\ncutoff-scheme = Verlet\ncoulombtype = Cut-off\nrcoulomb = 1.5\nrvdw = 1.5\n' > rerun.mdp
gmx -quiet grompp -f rerun.mdp -c /app/output/conf.gro -p /app/output/topol.top -o rerun.tpr -maxwarn 1  # net charge
gmx -quiet mdrun -s rerun.tpr -rerun /app/output/conf.gro -deffnm rerun -nt 1
printf 'Bond\nAngle\nProper-Dih.\nPer.-Imp.-Dih.\nImproper-Dih.\n\n' | gmx -quiet energy -f rerun.edr -o rerun.xvg
python3 - <<'PY'
import json, re
import numpy as np
import openmm
text = open("/tmp/rerun/rerun.xvg").read()
row = dict(zip(re.findall(r'^@ s\d+ legend "(.*)"', text, re.M), np.loadtxt("/tmp/rerun/rerun.xvg", comments=("#", "@"), ndmin=2)[0, 1:]))
lines = open("/app/output/conf.gro").read().splitlines()
xyz = [[float(l[20:28]), float(l[28:36]), float(l[36:44])] for l in lines[2:2 + int(lines[1])]]
system = openmm.XmlSerializer.deserialize(open("/app/inputs/system.xml").read())
groups = {}
for i, force in enumerate(system.getForces()):
    force.setForceGroup(i)
    groups[type(force).__name__] = i
context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("Reference"))
context.setPositions(xyz)
energy = lambda name: context.getState(getEnergy=True, groups={groups[name]}).getPotentialEnergy()._value
json.dump({"gromacs": {"bond": row["Bond"], "angle": row["Angle"],
                       "torsion": sum(row.get(k, 0.0) for k in ("Proper Dih.", "Per. Imp. Dih.", "Improper Dih."))},
           "openmm": {"bond": energy("HarmonicBondForce"), "angle": energy("HarmonicAngleForce"), "torsion": energy("PeriodicTorsionForce")}},
          open("/app/output/energies.json", "w"), indent=1)
PY
cat /app/output/energies.json
