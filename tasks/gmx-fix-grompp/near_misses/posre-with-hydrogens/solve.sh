#!/bin/bash
# Near miss: a wrong selection. posre.itp is rebuilt with genrestr on group Protein, hydrogens included,
# where the protocol (and pdb2gmx's posre.itp) restrains the peptide's heavy atoms only. grompp accepts it.
set -euo pipefail
export OMP_NUM_THREADS=1
mkdir -p /app/output && cd /app/output
cp /app/inputs/topol.top /app/inputs/nvt.mdp .
# 1. The ions (NA) have no parameters: include the force field's ions.itp after the water model.
sed -i 's|#include "amber99sb-ildn.ff/tip3p.itp"|&\n\n; Include topology for ions\n#include "amber99sb-ildn.ff/ions.itp"|' topol.top
# 2. posre.itp (included under POSRES) is missing: restrain the peptide again (pdb2gmx's 1000 kJ/mol/nm^2).
printf 'Protein\n' | gmx -quiet genrestr -f /app/inputs/conf.gro -o posre.itp -fc 1000 1000 1000
# 3-5. Coupling groups must cover the ions; H bonds need constraints at 2 fs; PME with Verlet needs rvdw = rcoulomb.
sed -i -e 's/^tc-grps .*/tc-grps       = Protein Non-Protein/' -e 's/^rvdw .*/rvdw          = 1.0/' \
       -e 's/^constraints .*/constraints   = h-bonds/' nvt.mdp
gmx -quiet grompp -f nvt.mdp -c /app/inputs/conf.gro -r /app/inputs/conf.gro -p topol.top -o nvt.tpr -maxwarn 0
rm -f mdout.mdp ./\#*
printf '{"problems": ["missing_ion_parameters", "missing_restraint_file", "incomplete_coupling_groups", "missing_constraints", "cutoff_mismatch"]}\n' > diagnosis.json
