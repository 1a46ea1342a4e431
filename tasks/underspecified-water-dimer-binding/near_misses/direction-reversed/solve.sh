#!/bin/bash
# Near miss: a keyword slip. The reference's calculation and numbers, but the comparison with the benchmark reversed:
# the counterpoise-corrected MP2/aug-cc-pVDZ number (about -4.4 kcal/mol) is called stronger than the CCSD(T)/CBS
# -4.92 (binding_vs_benchmark "stronger"), the justification calling it an overbinding. Its justification names
# "counterpoise", the computed number and the benchmark, which passed a keyword check on the text.
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
           "binding_vs_benchmark": "stronger",
           "justification": "MP2 with the diffuse, polarized aug-cc-pVDZ basis is a standard, affordable choice for "
                            "hydrogen bonds (it captures dispersion, which B3LYP lacks); the Boys-Bernardi counterpoise correction (monomers in the dimer basis via "
                            "ghost atoms) removes the basis-set superposition error, which would otherwise overbind. "
                            f"The result, {(e_ab - e_a - e_b) * HARTREE:.2f} kcal/mol, overbinds the CCSD(T)/CBS value of -4.92 kcal/mol by about half a kcal/mol, the MP2 overbinding of hydrogen bonds."},
          open("/app/output/binding.json", "w"), indent=1)
PY
cat /app/output/binding.json
