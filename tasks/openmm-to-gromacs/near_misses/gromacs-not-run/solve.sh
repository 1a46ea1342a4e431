#!/bin/bash
# Near miss: a tool claimed but not run. The topology and coordinates are written as the reference does, but
# GROMACS is never run (no grompp, no mdrun -rerun): the OpenMM energies are reported as GROMACS's too.
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
structure.save("/app/output/conf.gro", overwrite=True)
PY
python3 - <<'PY'
import json, re
import numpy as np
import openmm
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
openmm_terms = {"bond": energy("HarmonicBondForce"), "angle": energy("HarmonicAngleForce"), "torsion": energy("PeriodicTorsionForce")}
# ParmEd writes the System's own parameters, so GROMACS gives the same terms: reported for both sides
json.dump({"gromacs": dict(openmm_terms), "openmm": openmm_terms},
          open("/app/output/energies.json", "w"), indent=1)
PY
cat /app/output/energies.json
