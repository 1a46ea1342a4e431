"""Check the GROMACS system with gmx itself: gmx check, grompp -maxwarn 0, gmx dump, and a reference pdb2gmx."""

import os
import re
import shutil
import sys
import tempfile

from verifykit import gmx, gmx_error, load_json, main, restraint_count, topology_includes

OUT, INPUTS = "/app/output", "/app/inputs"


def read_gro(path):
    lines = open(path).read().splitlines()
    n = int(lines[1])
    atoms = [
        (int(l[0:5]), l[5:10].strip(), l[10:15].strip(), float(l[20:28]), float(l[28:36]), float(l[36:44]))
        for l in lines[2 : 2 + n]
    ]
    return atoms, [float(x) for x in lines[2 + n].split()]


def topology_charge(path):
    """Sum of the charges of the [ atoms ] section of a pdb2gmx molecule topology."""
    charge, section = 0.0, None
    for line in open(path):
        line = line.split(";")[0].strip()
        if line.startswith("["):
            section = line.strip("[] ")
        elif section == "atoms" and line and not line.startswith("#"):
            charge += float(line.split()[6])
    return charge


def residues(atoms):
    seen = []
    for number, name, *_ in atoms:
        if not seen or seen[-1] != (number, name):
            seen.append((number, name))
    return seen


def verify(checks):
    work = tempfile.mkdtemp()
    reference = os.path.join(work, "reference")
    os.makedirs(reference)
    code, log = gmx(
        "pdb2gmx",
        "-f",
        f"{INPUTS}/peptide_heavy.pdb",
        "-o",
        "ref.gro",
        "-p",
        "ref.top",
        "-i",
        "ref_posre.itp",
        "-ff",
        "amber99sb-ildn",
        "-water",
        "tip3p",
        "-ignh",
        cwd=reference,
    )
    assert code == 0, "reference pdb2gmx failed: " + log[-500:]
    ref_atoms, _ = read_gro(os.path.join(reference, "ref.gro"))
    peptide_charge = round(topology_charge(os.path.join(reference, "ref.top")))
    with checks.check("em.tpr passes gmx check"):
        code, log = gmx("check", "-s1", f"{OUT}/em.tpr")
        assert code == 0 and "Fatal error" not in log, log[-400:]
    with checks.check(
        "grompp accepts topol.top + conf.gro + em.mdp with -maxwarn 0 (includes present, neutral)", kind="science"
    ):
        copy = os.path.join(work, "copy")
        shutil.copytree(OUT, copy)
        code, log = gmx(
            "grompp",
            "-f",
            f"{INPUTS}/em.mdp",
            "-c",
            "conf.gro",
            "-p",
            "topol.top",
            "-o",
            "re.tpr",
            "-maxwarn",
            "0",
            cwd=copy,
        )
        assert code == 0, log[-600:]
    with checks.check("every file topol.top includes, in every #ifdef branch, is delivered or part of GROMACS"):
        includes = topology_includes(f"{OUT}/topol.top")
        assert not includes["missing"], (
            "not found: "
            + "; ".join(includes["missing"])
            + " (deliver every included file, e.g. posre.itp, in /app/output)"
        )
    with checks.check("grompp -maxwarn 0 also accepts it with every define the topology tests (-DPOSRES ...)"):
        defines = topology_includes(f"{OUT}/topol.top")["defines"]
        restrained = os.path.join(work, "restrained")
        shutil.copytree(OUT, restrained)
        mdp = [l for l in open(f"{INPUTS}/em.mdp").read().splitlines() if not re.match(r"\s*define\s*=", l)]
        open(os.path.join(restrained, "defines.mdp"), "w").write(
            "\n".join(mdp + ["define = " + " ".join(f"-D{d}" for d in defines)]) + "\n"
        )
        code, log = gmx(
            "grompp",
            "-f",
            "defines.mdp",
            "-c",
            "conf.gro",
            "-r",
            "conf.gro",
            "-p",
            "topol.top",
            "-o",
            "posre.tpr",
            "-maxwarn",
            "0",
            cwd=restrained,
        )
        assert code == 0, f"with define = {' '.join('-D' + d for d in defines)}: " + gmx_error(log)
    with checks.check(
        "with -DPOSRES the heavy atoms pdb2gmx's posre.itp restrains are restrained (an empty posre.itp is not)"
    ):
        expected = restraint_count(os.path.join(reference, "ref_posre.itp"))
        code, log = gmx("dump", "-s", os.path.join(work, "restrained", "posre.tpr"))
        found = sum(int(n) for n in re.findall(r"Position Rest\.:\s*\n\s*nr:\s*(\d+)", log)) // 2
        assert code == 0 and found >= expected, (
            f"{found} position restraints in the topology with -DPOSRES; pdb2gmx's "
            f"posre.itp restrains {expected} heavy atoms"
        )
    atoms, box = [], []
    with checks.check("conf.gro readable"):
        atoms, box = read_gro(f"{OUT}/conf.gro")
    names = [name for _, name in residues(atoms)]
    waters, sodium, chloride = names.count("SOL"), names.count("NA"), names.count("CL")
    checks.require(
        "peptide first, complete, with the hydrogens pdb2gmx adds",
        [(a[1], a[2]) for a in atoms[: len(ref_atoms)]] == [(a[1], a[2]) for a in ref_atoms],
        f"the first {len(ref_atoms)} atoms differ from pdb2gmx's chignolin",
    )
    with checks.check("AMBER99SB-ILDN with TIP3P"):
        text = open(f"{OUT}/topol.top").read()
        assert re.search(r'#include\s+"amber99sb-ildn\.ff/forcefield\.itp"', text), (
            "amber99sb-ildn forcefield.itp not included"
        )
        assert re.search(r'#include\s+"amber99sb-ildn\.ff/tip3p\.itp"', text), (
            "TIP3P (amber99sb-ildn.ff/tip3p.itp) not included"
        )
    checks.require(
        "ions neutralize the peptide",
        sodium - chloride == -peptide_charge,
        f"Na {sodium}, Cl {chloride}, peptide charge {peptide_charge}",
    )
    with checks.check("NaCl at 0.15 M (box volume or water count)"):
        by_volume = 0.15 * 0.6022 * box[0] * box[1] * box[2]
        by_water = 0.15 / 55.5 * waters
        pairs = min(sodium, chloride)
        # genion rounds the pair count of the box volume; the water-count convention is accepted too. One pair of
        # slack covers the rounding and the neutralizing ions; 0.1 or 0.2 M misses both by more here.
        assert any(abs(pairs - e) <= 1.0 for e in (by_volume, by_water)), (
            f"{pairs} ion pairs; 0.15 M is {by_volume:.1f} (volume) or {by_water:.1f} (water count)"
        )
    with checks.check("cubic box with >= 1.0 nm padding"):
        assert len(box) == 3 and max(box) - min(box) < 1e-3, f"box {box} is not cubic"
        xyz = [a[3:] for a in atoms[: len(ref_atoms)]]
        extent = [max(p[k] for p in xyz) - min(p[k] for p in xyz) for k in range(3)]
        assert all(box[k] >= extent[k] + 2.0 - 0.05 for k in range(3)), f"box {box} for a peptide extent {extent}"
    with checks.check("em.tpr made from em.mdp (unchanged) and conf.gro"):
        code, dump = gmx("dump", "-s", f"{OUT}/em.tpr")
        assert code == 0, dump[-300:]
        assert re.search(r"natoms\s*=\s*%d\b" % len(atoms), dump), "em.tpr atom count differs from conf.gro"
        assert re.search(r"integrator\s*=\s*steep", dump) and re.search(r"emtol\s*=\s*1000", dump), (
            "em.tpr is not from em.mdp"
        )
        # the delivered run input is grompp's of em.mdp unchanged with the delivered conf.gro and topol.top
        code, diff = gmx("check", "-s1", f"{OUT}/em.tpr", "-s2", os.path.join(work, "copy", "re.tpr"))
        differing = [
            line
            for line in diff.splitlines()
            if line.startswith(("inputrec->", "x[", "box")) and "seed" not in line.lower()  # ld-seed -1: random
        ]
        assert code == 0 and not differing, "em.tpr differs from grompp's of em.mdp: " + "; ".join(differing[:3])
    with checks.check("build.json matches the system"):
        build = load_json(f"{OUT}/build.json")
        assert (build["waters"], build["sodium"], build["chloride"], build["atoms"]) == (
            waters,
            sodium,
            chloride,
            len(atoms),
        ), f"build.json {build}; conf.gro {waters} SOL, {sodium} NA, {chloride} CL, {len(atoms)} atoms"
        assert all(abs(float(a) - b) < 1e-3 for a, b in zip(build["box_nm"], box)) and len(build["box_nm"]) == 3, (
            "box_nm differs"
        )


sys.exit(main(verify))
