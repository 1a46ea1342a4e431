"""Run the two xtb single points and compare every reported number."""

import os
import re
import subprocess
import sys
import tempfile

from verifykit import load_json, main


def xtb(*extra):
    work = tempfile.mkdtemp()
    result = subprocess.run(
        ["xtb", "/app/inputs/methanol.xyz", "--gfn", "2", "--sp", "--chrg", "0", "--uhf", "0", *extra],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    text = result.stdout
    gsolv = re.search(r"-> Gsolv\s+(-?\d+\.\d+) Eh", text)
    return {
        "energy": float(re.findall(r"TOTAL ENERGY\s+(-?\d+\.\d+) Eh", text)[-1]),
        "dipole": float(re.search(r"molecular dipole:.*?full:\s+\S+\s+\S+\s+\S+\s+(\S+)", text, re.S).group(1)),
        "gap": float(re.findall(r"HOMO-LUMO GAP\s+(-?\d+\.\d+) eV", text)[-1]),
        "gsolv": float(gsolv.group(1)) * 627.5095 if gsolv else None,
    }


def verify(checks):
    gas, water = xtb(), xtb("--alpb", "water")
    report = {}
    with checks.check("methanol.json readable"):
        report = load_json("/app/output/methanol.json")
    number = lambda key: float(report[key]) if isinstance(report.get(key), (int, float)) else float("nan")
    checks.require(
        "gas-phase energy (1e-6 Eh)",
        abs(number("gas_energy_eh") - gas["energy"]) < 1e-6,
        f"{report.get('gas_energy_eh')} vs {gas['energy']}",
    )
    checks.require(
        "ALPB water energy (1e-6 Eh)",
        abs(number("water_energy_eh") - water["energy"]) < 1e-6,
        f"{report.get('water_energy_eh')} vs {water['energy']}",
    )
    checks.require(
        "Gsolv in kcal/mol (0.01)",
        abs(number("gsolv_kcal_mol") - water["gsolv"]) < 0.01,
        f"{report.get('gsolv_kcal_mol')} vs {water['gsolv']:.3f}",
    )
    checks.require(
        "dipole moments (Debye, 0.002)",
        abs(number("gas_dipole_debye") - gas["dipole"]) < 2e-3
        and abs(number("water_dipole_debye") - water["dipole"]) < 2e-3,
        f"{report.get('gas_dipole_debye')}/{report.get('water_dipole_debye')} vs {gas['dipole']}/{water['dipole']}",
    )
    checks.require(
        "HOMO-LUMO gaps (eV, 0.001)",
        abs(number("gas_gap_ev") - gas["gap"]) < 1e-3 and abs(number("water_gap_ev") - water["gap"]) < 1e-3,
        f"{report.get('gas_gap_ev')}/{report.get('water_gap_ev')} vs {gas['gap']:.4f}/{water['gap']:.4f}",
    )


sys.exit(main(verify))
