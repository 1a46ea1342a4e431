"""Run xtb on the delivered geometries: single points with gradients, dihedrals, and the reported numbers."""

import os
import re
import subprocess
import sys
import tempfile

import numpy as np
from verifykit import close, load_json, main

HARTREE_KCAL = 627.5095


def read_xyz(path):
    lines = open(path).read().splitlines()
    atoms = [l.split() for l in lines[2 : 2 + int(lines[0])]]
    return [a[0] for a in atoms], np.array([[float(v) for v in a[1:4]] for a in atoms])


def dihedral(p):
    b0, b1, b2 = p[0] - p[1], p[2] - p[1], p[3] - p[2]
    b1 = b1 / np.linalg.norm(b1)
    v, w = b0 - b0 @ b1 * b1, b2 - b2 @ b1 * b1
    return abs(float(np.degrees(np.arctan2(np.cross(b1, v) @ w, v @ w))))


def xtb_single_point(path):
    """GFN2-xTB energy (Eh), gradient norm (Eh/bohr) and HOMO-LUMO gap (eV) of a geometry."""
    work = tempfile.mkdtemp()
    result = subprocess.run(
        ["xtb", os.path.abspath(path), "--gfn", "2", "--grad", "--chrg", "0", "--uhf", "0"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    log = result.stdout
    assert result.returncode == 0, log[-400:] + result.stderr[-400:]
    energy = float(re.findall(r"TOTAL ENERGY\s+(-?\d+\.\d+) Eh", log)[-1])
    gradient = float(re.findall(r"GRADIENT NORM\s+(-?\d+\.\d+) Eh/α", log)[-1])
    gap = float(re.findall(r"HOMO-LUMO GAP\s+(-?\d+\.\d+) eV", log)[-1])
    return energy, gradient, gap


def verify(checks):
    elements, _ = read_xyz("/app/inputs/butane.xyz")
    computed = {}
    for name, low, high in (("anti", 165.0, 180.0), ("gauche", 45.0, 85.0)):
        with checks.check(f"{name}.xyz is butane in the input's atom order"):
            got, xyz = read_xyz(f"/app/output/{name}.xyz")
            assert got == elements, f"elements {''.join(got)}"
            distances = np.linalg.norm(xyz[:, None] - xyz[None], axis=-1)
            assert all(1.45 < distances[i, i + 1] < 1.6 for i in range(3)), "the carbon chain is broken"
            computed[name] = {"dihedral": dihedral(xyz[:4])}
        with checks.check(
            f"{name} is an optimized GFN2-xTB minimum (gradient norm < 1e-3 Eh/bohr) "
            f"with dihedral {low:.0f}-{high:.0f} deg"
        ):
            energy, gradient, gap = xtb_single_point(f"/app/output/{name}.xyz")
            computed[name].update(energy=energy, gap=gap)
            assert gradient < 1e-3, f"gradient norm {gradient}"
            assert low <= computed[name]["dihedral"] <= high, f"dihedral {computed[name]['dihedral']:.1f} deg"
    report = {}
    with checks.check("conformers.json readable"):
        report = load_json("/app/output/conformers.json")
    with checks.check("reported energies are xtb's for the delivered geometries (1e-5 Eh)"):
        for name in ("anti", "gauche"):
            assert abs(float(report[f"{name}_energy_eh"]) - computed[name]["energy"]) < 1e-5, (
                f"{name}: {report[f'{name}_energy_eh']} vs {computed[name]['energy']}"
            )
    with checks.check("gauche - anti in kcal/mol (consistent, between 0.2 and 1.5)"):
        delta = (computed["gauche"]["energy"] - computed["anti"]["energy"]) * HARTREE_KCAL
        # xtb's energies of the delivered geometries reproduce its optimization's printout to ~1e-6 Eh (6e-4 kcal/mol):
        # 0.002 kcal/mol keeps the difference as computed, not rounded to a plausible 0.6
        assert abs(float(report["delta_e_kcal_mol"]) - delta) < 0.002, (
            f"{report['delta_e_kcal_mol']} vs {delta:.3f} kcal/mol"
        )
        assert 0.2 <= delta <= 1.5, f"gauche - anti {delta:.3f} kcal/mol"
    with checks.check("dihedrals and the HOMO-LUMO gap reported"):
        for name in ("anti", "gauche"):
            assert abs(float(report[f"dihedral_{name}_deg"]) - computed[name]["dihedral"]) < 0.5, f"{name} dihedral"
        assert close(report["homo_lumo_gap_anti_ev"], computed["anti"]["gap"], rel=0, abs_=0.01), (
            f"gap {report['homo_lumo_gap_anti_ev']}"
        )


sys.exit(main(verify))
