#!/bin/bash
# Reference: MP2/aug-cc-pVDZ on RHF, counterpoise-corrected (Boys-Bernardi: each monomer with the partner's ghost basis).
set -euo pipefail
mkdir -p /app/output
python3 - <<'PY'
import json
from pyscf import gto, mp, scf

lines = open("/app/inputs/water_dimer.xyz").read().splitlines()[2:8]
HARTREE = 627.509


def energy(atoms, basis="aug-cc-pvdz"):
    mf = scf.RHF(gto.M(atom="\n".join(atoms), basis=basis, verbose=0)).run()
    return mf.e_tot + mp.MP2(mf).run().e_corr


def ghosted(keep):
    return [l if i in keep else "ghost-" + l.split()[0] + " " + " ".join(l.split()[1:]) for i, l in enumerate(lines)]


e_ab, e_a, e_b = energy(lines), energy(ghosted({0, 1, 2})), energy(ghosted({3, 4, 5}))
json.dump({"method": "mp2", "basis": "aug-cc-pvdz", "counterpoise": True, "e_dimer_hartree": e_ab,
           "e_monomer_a_hartree": e_a, "e_monomer_b_hartree": e_b,
           "interaction_energy_kcal_mol": (e_ab - e_a - e_b) * HARTREE,
           "binding_vs_benchmark": "stronger" if (e_ab - e_a - e_b) * HARTREE < -4.92 else "weaker",
           "justification": "MP2 with the diffuse, polarized aug-cc-pVDZ basis is a standard, affordable choice for "
                            "hydrogen bonds (it captures dispersion, which B3LYP lacks); the Boys-Bernardi counterpoise correction (monomers in the dimer basis via "
                            "ghost atoms) removes the basis-set superposition error, which would otherwise overbind. "
                            f"The result, {(e_ab - e_a - e_b) * HARTREE:.2f} kcal/mol, underbinds the CCSD(T)/CBS value of about -5 by about half a kcal/mol, the known basis-set incompleteness of a double-zeta basis."},
          open("/app/output/binding.json", "w"), indent=1)
PY
cat /app/output/binding.json
