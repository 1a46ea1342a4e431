"""Rebuild the run input from the agent's files with grompp -maxwarn 0 and read it with gmx dump."""

import os
import re
import shutil
import subprocess
import sys
import tempfile

from verifykit import load_json, main

EXPECTED = {
    "missing_ion_parameters",
    "missing_restraint_file",
    "incomplete_coupling_groups",
    "missing_constraints",
    "cutoff_mismatch",
}


def gmx(*args, cwd="/tmp"):
    result = subprocess.run(
        ["gmx", "-quiet", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        timeout=180,
    )
    return result.returncode, result.stdout + result.stderr


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
        (re.findall(r"(?:ERROR \d+|Fatal error:)[^\n]*\n[^\n]*", log) or [log[-300:]])[0],
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
    checks.require(
        "bonds to hydrogen constrained", interactions(dump, "Constraint") > 0, "no constraints in the peptide"
    )
    with checks.check("diagnosis lists exactly the problems there were"):
        problems = set(load_json("/app/output/diagnosis.json")["problems"])
        assert problems == EXPECTED, f"missing {sorted(EXPECTED - problems)}, extra {sorted(problems - EXPECTED)}"


sys.exit(main(verify))
