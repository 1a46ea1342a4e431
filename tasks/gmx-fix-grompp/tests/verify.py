"""Rebuild the run input from the agent's files with grompp -maxwarn 0 and read it with gmx dump."""

import os
import re
import shutil
import sys
import tempfile
from functools import partial

from verifykit import gmx as run_gmx
from verifykit import gmx_error, load_json, main

EXPECTED = {
    "missing_ion_parameters",
    "missing_restraint_file",
    "incomplete_coupling_groups",
    "missing_constraints",
    "cutoff_mismatch",
}


# verifykit.gmx with this verifier's working folder and time limit per command
gmx = partial(run_gmx, cwd="/tmp", timeout=180)


def interactions(dump, name):
    match = re.search(r"^\s+%s:\s*\n\s+nr:\s*(\d+)" % re.escape(name), dump, re.M)
    return int(match.group(1)) if match else 0


def verify(checks):
    work = tempfile.mkdtemp()
    shutil.copytree("/app/output", os.path.join(work, "out"))
    out = os.path.join(work, "out")
    code, log = gmx(
        "grompp",
        "-f",
        "nvt.mdp",
        "-c",
        "/app/inputs/conf.gro",
        "-r",
        "/app/inputs/conf.gro",
        "-p",
        "topol.top",
        "-o",
        "check.tpr",
        "-maxwarn",
        "0",
        cwd=out,
    )
    checks.require(
        "grompp accepts the fixed files with -maxwarn 0",
        code == 0,
        gmx_error(log),
    )
    with checks.check("the delivered nvt.tpr passes gmx check"):
        code2, log2 = gmx("check", "-s1", "/app/output/nvt.tpr")
        assert code2 == 0 and os.path.isfile("/app/output/nvt.tpr"), log2[-300:]
    dump = gmx("dump", "-s", os.path.join(out, "check.tpr"))[1] if code == 0 else ""
    value = lambda key: (re.search(r"^\s*%s\s*=\s*(\S+)" % re.escape(key), dump, re.M) or [None, None])[1]
    checks.require(
        "protocol kept: 100 ps of 2 fs steps",
        value("nsteps") == "50000" and value("dt") == "0.002",
        f"nsteps {value('nsteps')}, dt {value('dt')}",
    )
    with checks.check("every atom coupled at 300 K (V-rescale)"):
        assert (value("tcoupl") or "").lower() == "v-rescale", f"tcoupl {value('tcoupl')}"
        ref_t = re.search(r"ref-t:\s*([\d.\s]+)\n", dump).group(1).split()
        assert ref_t and all(float(t) == 300.0 for t in ref_t), f"ref-t {ref_t}"
    checks.require(
        "PME with rcoulomb = rvdw = 1.0 nm",
        value("coulombtype") == "PME" and value("rcoulomb") == "1" and value("rvdw") == "1",
        f"{value('coulombtype')}, rcoulomb {value('rcoulomb')}, rvdw {value('rvdw')}",
    )
    with checks.check("peptide heavy atoms restrained"):
        heavy = 0
        lines = open("/app/inputs/conf.gro").read().splitlines()
        for line in lines[2 : 2 + int(lines[1])]:
            if line[5:10].strip() not in ("SOL", "NA", "CL") and not line[10:15].strip().startswith("H"):
                heavy += 1
        restraints = interactions(dump, "Position Rest.") // 2
        assert restraints == heavy, f"{restraints} position restraints for {heavy} heavy atoms"
    with checks.check("bonds to hydrogen constrained, and only those (h-bonds: one constraint per peptide hydrogen)"):
        lines = open("/app/inputs/conf.gro").read().splitlines()
        hydrogens = sum(
            1
            for line in lines[2 : 2 + int(lines[1])]
            if line[5:10].strip() not in ("SOL", "NA", "CL") and line[10:15].strip().startswith("H")
        )
        constraints = interactions(dump, "Constraint") // 3  # (type, ai, aj) per constraint
        assert constraints == hydrogens, f"{constraints} constraints in the peptide, {hydrogens} bonds to hydrogen"
    with checks.check("the delivered nvt.tpr is grompp's of the delivered files (gmx check)"):
        code3, log3 = gmx("check", "-s1", "/app/output/nvt.tpr", "-s2", os.path.join(out, "check.tpr"))
        differing = [
            line
            for line in log3.splitlines()
            if line.startswith(("inputrec->", "x[", "top")) and "seed" not in line.lower()  # ld-seed -1: random
        ]
        assert code == 0 and code3 == 0 and not differing, "; ".join(differing[:3]) or log3[-300:]
    with checks.check("nothing else of nvt.mdp changed (the protocol's other settings are the input's)"):

        def settings(path):
            found = {}
            for line in open(path):
                text = line.split(";")[0]
                if "=" in text:
                    key, val = (x.strip() for x in text.split("=", 1))
                    found[key.lower().replace("_", "-")] = val
            return found

        before, after = settings("/app/inputs/nvt.mdp"), settings("/app/output/nvt.mdp")
        # what fixing the five problems may touch: the coupling groups (and their per-group values), the
        # cut-offs, the constraints and their algorithm, the neighbour-list buffer
        free = {"tc-grps", "tau-t", "ref-t", "rvdw", "rcoulomb", "constraints", "constraint-algorithm", "rlist",
                "verlet-buffer-tolerance", "vdw-modifier", "coulomb-modifier"}  # fmt: skip
        changed = []
        for key in sorted((set(before) | set(after)) - free):
            a, b = before.get(key, ""), after.get(key, "")
            try:
                same = [float(x) for x in a.split()] == [float(x) for x in b.split()]
            except ValueError:
                same = a.lower() == b.lower()
            if not same:
                changed.append(f"{key}: {a!r} -> {b!r}")
        assert not changed, "; ".join(changed)
    with checks.check("diagnosis lists exactly the problems there were"):
        problems = set(load_json("/app/output/diagnosis.json")["problems"])
        assert problems == EXPECTED, f"missing {sorted(EXPECTED - problems)}, extra {sorted(problems - EXPECTED)}"


sys.exit(main(verify))
