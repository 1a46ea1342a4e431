"""Check the packmol box: counts recomputed under the stated convention, density, rigid template copies, and the
closest contact between molecules under periodic boundaries; gmx editconf must read the PDB."""

import os
import re
import sys
import tempfile

import numpy as np
from verifykit import gmx, load_json, main

OUT, INPUTS = "/app/output", "/app/inputs"
N_A = 6.02214076e23
MASS = {"URE": 60.056, "SOL": 18.015}
CONCENTRATION_TOL = 0.025  # relative, against 1 mol/L or 1 mol/kg
# g/cm^3: 1 M aqueous urea at 298 K is 1.013 (molar; 1 mol/kg, 1.012), within 1 %; a box with the water of
# pure water at its density plus the urea (1.057) or at the pure-water density overall (0.997) fails
DENSITY_REF, DENSITY_TOL = 1.013, 0.01
DENSITY = (round(DENSITY_REF * (1 - DENSITY_TOL), 3), round(DENSITY_REF * (1 + DENSITY_TOL), 3))
RIGID_TOL_A = 0.02  # RMSD of a molecule to its template after superposition
CONTACT_A = 1.5  # closest atoms of different molecules, minimum image
EDGE_NM = (3.6, 4.4)  # "about 4 nm"


def atoms_of(path):
    cryst, atoms = None, []
    for line in open(path):
        if line.startswith("CRYST1"):
            cryst = [float(line[6:15]), float(line[15:24]), float(line[24:33])]
        elif line.startswith(("ATOM", "HETATM")):
            atoms.append(
                (line[12:16].strip(), line[17:20].strip(), float(line[30:38]), float(line[38:46]), float(line[46:54]))
            )
    return cryst, atoms


def molecules(atoms, templates):
    out, i = [], 0
    while i < len(atoms):
        name = atoms[i][1]
        assert name in templates, f"atom {i + 1}: residue {name} is neither URE nor SOL"
        names, xyz = templates[name]
        chunk = atoms[i : i + len(names)]
        assert [a[0] for a in chunk] == names and all(a[1] == name for a in chunk), (
            f"atom {i + 1}: a {name} molecule's atoms are not those of the template in order"
        )
        out.append((name, np.array([a[2:] for a in chunk])))
        i += len(names)
    return out


def rmsd_to(template, xyz):
    a, b = template - template.mean(0), xyz - xyz.mean(0)
    u, _, vt = np.linalg.svd(a.T @ b)
    d = np.sign(np.linalg.det(u @ vt))
    rotation = u @ np.diag([1, 1, d]) @ vt
    return float(np.sqrt(((a @ rotation - b) ** 2).sum(1).mean()))


def closest_contact(mols, box, reach=2 * CONTACT_A):
    """The closest distance between atoms of different molecules, minimum image (orthorhombic box), exact when below
    ``reach`` (A; ``reach`` itself when no two such atoms are that close).

    Cell list: the wrapped atoms are binned in cells at least ``reach`` wide, so any pair closer than that lies in
    one cell or two neighbouring ones (periodically); each cell is compared with its 27-cell neighbourhood only.
    """
    xyz = np.concatenate([m[1] for m in mols])
    owner = np.concatenate([np.full(len(m[1]), k) for k, m in enumerate(mols)])
    box = np.array(box, dtype=float)
    wrapped = xyz - np.floor(xyz / box) * box
    n = np.maximum(1, np.floor(box / reach).astype(int))
    cell = np.minimum((wrapped / (box / n)).astype(int), n - 1)
    flat = np.ravel_multi_index(tuple(cell.T), tuple(n))
    order = np.argsort(flat, kind="stable")
    starts = np.searchsorted(flat[order], np.arange(int(n.prod()) + 1))
    offsets = np.array([(i, j, k) for i in (-1, 0, 1) for j in (-1, 0, 1) for k in (-1, 0, 1)])
    best = reach**2
    for c in range(int(n.prod())):
        mine = order[starts[c] : starts[c + 1]]
        if not len(mine):
            continue
        around = np.unique(
            np.ravel_multi_index(tuple(((np.array(np.unravel_index(c, tuple(n))) + offsets) % n).T), tuple(n))
        )
        others = np.concatenate([order[starts[k] : starts[k + 1]] for k in around])
        d = wrapped[mine, None, :] - wrapped[None, others, :]
        d -= np.round(d / box) * box
        r2 = (d**2).sum(-1)
        r2[owner[mine, None] == owner[None, others]] = np.inf
        best = min(best, float(r2.min()))
    return float(np.sqrt(best))


def verify(checks):
    templates = {}
    for res, name in (("URE", "urea.pdb"), ("SOL", "water.pdb")):
        _, template = atoms_of(os.path.join(INPUTS, name))
        templates[res] = ([a[0] for a in template], np.array([a[2:] for a in template]))
    spec, cryst, mols = {}, None, []
    with checks.check("build.json readable with the contracted keys"):
        spec = load_json(f"{OUT}/build.json")
        assert {
            "convention",
            "concentration",
            "box_nm",
            "n_urea",
            "n_water",
            "tolerance_angstrom",
            "density_g_cm3",
        } <= set(spec), f"keys {sorted(spec)}"
    with checks.check("packmol.inp present"):
        assert "structure" in open(f"{OUT}/packmol.inp").read(), "no structure block"
    with checks.check("box.pdb readable: a CRYST1 box and whole URE/SOL molecules in the templates' order"):
        cryst, atoms = atoms_of(f"{OUT}/box.pdb")
        assert cryst, "no CRYST1 record"
        mols = molecules(atoms, templates)
    with checks.check("gmx editconf reads box.pdb with its box", kind="format"):
        work = tempfile.mkdtemp()
        code, log = gmx("editconf", "-f", f"{OUT}/box.pdb", "-o", "check.gro", cwd=work, timeout=120)
        assert code == 0, log[-300:]
    n_urea = sum(1 for m in mols if m[0] == "URE")
    n_water = sum(1 for m in mols if m[0] == "SOL")
    checks.require(
        "build.json's counts and box are those of box.pdb",
        bool(spec)
        and (spec.get("n_urea"), spec.get("n_water")) == (n_urea, n_water)
        and cryst is not None
        and all(abs(float(b) * 10 - c) < 0.01 for b, c in zip(spec.get("box_nm", []), cryst))
        and len(spec.get("box_nm", [])) == 3,
        f"build.json {spec.get('n_urea')} urea, {spec.get('n_water')} water, box {spec.get('box_nm')}; "
        f"box.pdb {n_urea}, {n_water}, {cryst}",
    )
    volume_cm3 = float(np.prod(cryst)) * 1e-24 if cryst else float("nan")
    convention = str(spec.get("convention", "")).lower()
    with checks.check(
        f"1 urea per L (molar) or per kg water (molal) as stated, "
        f"recomputed from the counts (within {CONCENTRATION_TOL:.1%})"
    ):
        assert convention in ("molar", "molal"), f"convention {spec.get('convention')!r}"
        value = n_urea / (N_A * volume_cm3 / 1000) if convention == "molar" else n_urea / (n_water * MASS["SOL"] / 1000)
        assert abs(value - 1.0) <= CONCENTRATION_TOL, (
            f"{n_urea} urea, {n_water} water in {volume_cm3:.3e} cm^3: {value:.4f} ({convention})"
        )
        assert abs(float(spec["concentration"]) - value) <= 0.005, (
            f"stated {spec['concentration']}, the counts give {value:.4f}"
        )
    with checks.check(f"density of 1 M aqueous urea ({DENSITY[0]}-{DENSITY[1]} g/cm^3) from the counts and the box"):
        density = (n_urea * MASS["URE"] + n_water * MASS["SOL"]) / N_A / volume_cm3
        assert DENSITY[0] <= density <= DENSITY[1], f"{density:.3f} g/cm^3"
        assert abs(float(spec["density_g_cm3"]) - density) <= 0.005, (
            f"build.json states {spec['density_g_cm3']} g/cm^3, the counts and the box give {density:.3f}"
        )
    with checks.check("build.json's tolerance is the one packmol.inp ran with"):
        found = re.search(r"^\s*tolerance\s+([-\d.eE+]+)", open(f"{OUT}/packmol.inp").read(), re.M)
        assert found, "no tolerance line in packmol.inp"
        assert abs(float(spec["tolerance_angstrom"]) - float(found.group(1))) < 1e-9, (
            f"build.json {spec['tolerance_angstrom']}, packmol.inp {found.group(1)}"
        )
    checks.require(
        f"box edges about 4 nm ({EDGE_NM[0]}-{EDGE_NM[1]} nm)",
        bool(cryst) and all(EDGE_NM[0] <= c / 10 <= EDGE_NM[1] for c in cryst),
        f"box {cryst} A",
    )
    with checks.check(f"every molecule a rigid copy of its template (RMSD <= {RIGID_TOL_A} A)"):
        worst = max((rmsd_to(templates[name][1], xyz), k) for k, (name, xyz) in enumerate(mols))
        assert mols and worst[0] <= RIGID_TOL_A, f"molecule {worst[1] + 1}: RMSD {worst[0]:.3f} A to its template"
    with checks.check("every atom inside the box"):
        xyz = np.concatenate([m[1] for m in mols])
        assert (xyz >= -0.01).all() and (xyz <= np.array(cryst) + 0.01).all(), "atoms outside the CRYST1 box"
    with checks.check(f"no two atoms of different molecules closer than {CONTACT_A} A, periodic images included"):
        contact = closest_contact(mols, cryst)
        assert contact >= CONTACT_A, f"closest contact {contact:.2f} A"


sys.exit(main(verify))
