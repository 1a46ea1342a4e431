#!/bin/bash
# Reference: GAFF2 atom types and AM1-BCC charges with antechamber (sqm), missing parameters with parmchk2,
# the Amber topology with tleap (leaprc.gaff2).
set -euo pipefail
mkdir -p /app/output
cd /app/output
antechamber -i /app/inputs/toluene.sdf -fi sdf -o ligand.mol2 -fo mol2 -c bcc -at gaff2 -nc 0 -rn TOL -pf y
parmchk2 -i ligand.mol2 -f mol2 -o ligand.frcmod -s gaff2
cat > tleap.in <<'LEAP'
source leaprc.gaff2
TOL = loadmol2 ligand.mol2
loadamberparams ligand.frcmod
check TOL
saveamberparm TOL ligand.prmtop ligand.inpcrd
quit
LEAP
tleap -f tleap.in > tleap.log
rm -f leap.log
python3 -c "
import openmm.app as app
p = app.AmberPrmtopFile('ligand.prmtop'); print(p.topology.getNumAtoms(), 'atoms')"
