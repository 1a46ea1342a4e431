#!/bin/bash
# Near miss: a tool claimed but not run. The System is converted as the reference does, but GROMACS is never
# run (no grompp, no mdrun -rerun, no gmx energy): the OpenMM energies are reported for both programs.
set -euo pipefail
export OMP_NUM_THREADS=1
mkdir -p /app/output /tmp/rerun && cd /tmp/rerun
cp /app/inputs/topol.top /app/inputs/posre.itp /app/inputs/conf.gro .
python3 - <<'PY'
import json
import re

import numpy as np
import openmm
import parmed
from openmm import app

parmed.gromacs.GROMACS_TOPDIR = "/usr/share/gromacs/top"
structure = parmed.load_file("/tmp/rerun/topol.top", xyz="/tmp/rerun/conf.gro")
# AMBER dihedrals that GROMACS lists with periodicity 0 and zero amplitude: OpenMM refuses periodicity 0, and the
# term contributes nothing, so give it periodicity 1 (energy unchanged).
for dihedral in structure.dihedrals:
    for term in (dihedral.type if isinstance(dihedral.type, parmed.DihedralTypeList) else [dihedral.type]):
        if term is not None and term.per <= 0 and term.phi_k == 0:
            term.per = 1
system = structure.createSystem(nonbondedMethod=app.NoCutoff, constraints=None, rigidWater=False)
open("/app/output/system.xml", "w").write(openmm.XmlSerializer.serialize(system))
groups = {}
for i, force in enumerate(system.getForces()):
    force.setForceGroup(i)
    groups[type(force).__name__] = i
context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("Reference"))
context.setPositions(structure.positions)
energy = lambda name: context.getState(getEnergy=True, groups={groups[name]}).getPotentialEnergy()._value
openmm_terms = {"bond": energy("HarmonicBondForce"), "angle": energy("HarmonicAngleForce"), "torsion": energy("PeriodicTorsionForce")}
# ParmEd converts GROMACS's own parameters, so the two programs agree: the GROMACS side is the same numbers
result = {"gromacs": dict(openmm_terms), "openmm": openmm_terms}
json.dump(result, open("/app/output/energies.json", "w"), indent=1)
print(result)
PY
