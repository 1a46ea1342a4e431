#!/bin/bash
# Near miss: changes the protocol instead of fixing it. The 2 fs step without constraints is "fixed" by halving
# the step (1 fs x 100000, still 100 ps) and the warning left silenced with -maxwarn; the diagnosis says wrong_timestep.
set -euo pipefail
export OMP_NUM_THREADS=1
mkdir -p /app/output && cd /app/output
cp /app/inputs/topol.top /app/inputs/nvt.mdp .
# 1. The ions (NA) have no parameters: include the force field's ions.itp after the water model.
sed -i 's|#include "amber99sb-ildn.ff/tip3p.itp"|&\n\n; Include topology for ions\n#include "amber99sb-ildn.ff/ions.itp"|' topol.top
# 2. posre.itp (included under POSRES) is missing: restrain the peptide's heavy atoms again (pdb2gmx's 1000 kJ/mol/nm^2).
printf 'Protein-H\n' | gmx -quiet genrestr -f /app/inputs/conf.gro -o posre.itp -fc 1000 1000 1000
# 3-5. Coupling groups must cover the ions; 2 fs is too long without constraints: 1 fs steps, twice as many (still 100 ps).
sed -i -e 's/^tc-grps .*/tc-grps       = Protein Non-Protein/' -e 's/^rvdw .*/rvdw          = 1.0/' \
       -e 's/^dt .*/dt            = 0.001/' -e 's/^nsteps .*/nsteps        = 100000/' nvt.mdp
gmx -quiet grompp -f nvt.mdp -c /app/inputs/conf.gro -r /app/inputs/conf.gro -p topol.top -o nvt.tpr -maxwarn 1  # the remaining note on fast H bond vibrations
rm -f mdout.mdp ./\#*
printf '{"problems": ["missing_ion_parameters", "missing_restraint_file", "incomplete_coupling_groups", "cutoff_mismatch", "wrong_timestep"]}\n' > diagnosis.json
