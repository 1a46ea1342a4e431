"""Check the system with gmx: grompp -maxwarn 0, a reference pdb2gmx of 1PGA, crystal-water positions, ions, box."""

import os
import re
import shutil
import sys
import tempfile
from functools import partial

import numpy as np
from verifykit import gmx as run_gmx
from verifykit import gmx_error, main, restraint_count, topology_includes

OUT, INPUTS = "/app/output", "/app/inputs"


# verifykit.gmx with this verifier's working folder and time limit per command
gmx = partial(run_gmx, cwd="/tmp")


def read_gro(path):
    lines = open(path).read().splitlines()
    n = int(lines[1])
    atoms = [(l[5:10].strip(), l[10:15].strip()) for l in lines[2 : 2 + n]]
    xyz = np.array([[float(l[20:28]), float(l[28:36]), float(l[36:44])] for l in lines[2 : 2 + n]])
    return atoms, xyz, [float(x) for x in lines[2 + n].split()]


def verify(checks):
    work = tempfile.mkdtemp()
    code, log = gmx(
        "pdb2gmx",
        "-f",
        f"{INPUTS}/1PGA.pdb",
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
        cwd=work,
    )
    assert code == 0, "reference pdb2gmx failed: " + log[-400:]
    ref_atoms, ref_xyz, _ = read_gro(os.path.join(work, "ref.gro"))
    n_protein = sum(1 for name, _ in ref_atoms if name not in ("SOL", "HOH"))
    with checks.check("grompp accepts topol.top + conf.gro + em.mdp with -maxwarn 0 (complete, neutral)"):
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
        assert code == 0, gmx_error(log)
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
        expected = restraint_count(os.path.join(work, "ref_posre.itp"))
        code, log = gmx("dump", "-s", os.path.join(work, "restrained", "posre.tpr"))
        found = sum(int(n) for n in re.findall(r"Position Rest\.:\s*\n\s*nr:\s*(\d+)", log)) // 2
        assert code == 0 and found >= expected, (
            f"{found} position restraints in the topology with -DPOSRES; pdb2gmx's "
            f"posre.itp restrains {expected} heavy atoms"
        )
    with checks.check("topol.top is AMBER99SB-ILDN with TIP3P water (its force-field and water includes)"):
        text = open(f"{OUT}/topol.top").read()
        includes = re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M)
        assert "amber99sb-ildn.ff/forcefield.itp" in includes, f"force field includes {includes}"
        assert "amber99sb-ildn.ff/tip3p.itp" in includes, f"water model includes {includes}"
    with checks.check("em.tpr passes gmx check"):
        code, log = gmx("check", "-s1", f"{OUT}/em.tpr")
        assert code == 0 and os.path.isfile(f"{OUT}/em.tpr"), log[-300:]
    atoms, xyz, box = [], np.zeros((0, 3)), []
    with checks.check("conf.gro readable"):
        atoms, xyz, box = read_gro(f"{OUT}/conf.gro")
    checks.require(
        "protein first, as pdb2gmx builds it (AMBER99SB-ILDN, all hydrogens)",
        atoms[:n_protein] == ref_atoms[:n_protein],
        f"the first {n_protein} atoms differ from pdb2gmx's 1PGA",
    )
    checks.require(
        "then the 20 crystal waters as complete TIP3P molecules",
        [a[1] for a in atoms[n_protein : n_protein + 60]] == ["OW", "HW1", "HW2"] * 20
        and all(a[0] in ("SOL", "HOH") for a in atoms[n_protein : n_protein + 60]),
        "the 60 atoms after the protein are not 20 complete SOL molecules",
    )
    with checks.check("protein and crystal-water oxygens at the crystal positions (rigid translation only, 0.002 nm)"):
        heavy = [i for i, (res, name) in enumerate(ref_atoms[:n_protein]) if not name.startswith("H")]
        shift = (xyz[heavy] - ref_xyz[heavy]).mean(axis=0)
        assert np.abs(xyz[heavy] - ref_xyz[heavy] - shift).max() < 2e-3, "the protein was moved or changed"
        ow = [n_protein + 3 * k for k in range(20)]
        error = np.abs(xyz[ow] - ref_xyz[ow] - shift).max(axis=1)
        assert error.max() < 2e-3, f"{int((error >= 2e-3).sum())} crystal waters are not at their crystal positions"
    with checks.check("neutralized with Na+ only, bulk water added"):
        residues = {}
        lines = open(f"{OUT}/conf.gro").read().splitlines()
        for line in lines[2 : 2 + len(atoms)]:
            residues.setdefault((line[0:5], line[5:10].strip()), 0)
        names = [name for _, name in residues]
        assert names.count("NA") == 4 and names.count("CL") == 0, (
            f"{names.count('NA')} NA, {names.count('CL')} CL (1PGA carries -4)"
        )
        assert names.count("SOL") + names.count("HOH") > 1000, "no bulk water"
    with checks.check("cubic box with >= 1.0 nm padding"):
        assert len(box) == 3 and max(box) - min(box) < 1e-3, f"box {box} is not cubic"
        solute = xyz[: n_protein + 60]
        extent = solute.max(axis=0) - solute.min(axis=0)
        assert np.all(np.array(box) >= extent + 2.0 - 0.05), f"box {box} for a solute extent {extent.round(3)}"


sys.exit(main(verify))
