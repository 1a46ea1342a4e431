"""Accept every defensible convention (pH 7.0-7.5, any pdb2pqr force field); rerun pdb2pqr with the stated one and compare."""
import os
import subprocess
import sys
import tempfile

from verifykit import load_json, main

FORCEFIELDS = ("AMBER", "CHARMM", "PARSE", "PEOEPB", "SWANSON", "TYL06")


def read_pqr(path):
    atoms = []
    for line in open(path):
        if line.startswith(("ATOM", "HETATM")):
            fields = line.split()
            atoms.append((fields[3], fields[-6] if len(fields) >= 10 else fields[4], fields[2], float(fields[-2])))
    return atoms


def verify(checks):
    result = {}
    with checks.check("protonation.json readable"):
        result = load_json("/app/output/protonation.json")
    ph, forcefield = result.get("ph"), str(result.get("forcefield", "")).upper()
    checks.require("pH is a physiological choice (7.0-7.5)", isinstance(ph, (int, float)) and 7.0 <= ph <= 7.5, f"pH {ph}")
    checks.require("force field is one pdb2pqr knows", forcefield in FORCEFIELDS, f"forcefield {result.get('forcefield')}")
    atoms = []
    with checks.check("protein.pqr readable, every atom of 1PRB kept with hydrogens"):
        atoms = read_pqr("/app/output/protein.pqr")
        heavy = sum(1 for line in open("/app/inputs/1PRB.pdb") if line.startswith("ATOM") and line[76:78].strip() != "H")
        assert sum(1 for a in atoms if not a[2].startswith("H")) >= heavy and len(atoms) > heavy, f"{len(atoms)} atoms"
    with checks.check("net charge matches pdb2pqr + PROPKA at the stated pH and force field"):
        assert forcefield in FORCEFIELDS and isinstance(ph, (int, float)), "no usable convention stated"
        work = tempfile.mkdtemp()
        run = subprocess.run(["pdb2pqr", "--ff", forcefield, "--titration-state-method", "propka", "--with-ph", str(ph),
                              "/app/inputs/1PRB.pdb", os.path.join(work, "ref.pqr")], capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr[-400:]
        reference = round(sum(a[3] for a in read_pqr(os.path.join(work, "ref.pqr"))))
        got = round(sum(a[3] for a in atoms))
        assert got == reference and result.get("net_charge") == reference, f"PQR {got}, reported {result.get('net_charge')}, pdb2pqr {reference}"
    with checks.check("His52 neutral (PROPKA pKa about 6), tautomer either"):
        names = {a[0] for a in atoms if a[1] == "52"}
        assert names and names <= {"HID", "HIE", "HSD", "HSE", "HIS"} and not names & {"HIP", "HSP"}, f"His52 is {names}"
        reported = {str(k): v for k, v in (result.get("histidines") or {}).items()}
        assert reported.get("52") in names, f"histidines {reported} vs PQR {names}"
    assumptions = result.get("assumptions")
    checks.require("assumptions stated (pH and force field among them)", isinstance(assumptions, list) and len(assumptions) >= 2
                   and all(isinstance(a, str) and len(a) >= 10 for a in assumptions)
                   and any("ph" in a.lower() for a in assumptions), "assumptions missing or do not mention the pH")


sys.exit(main(verify))
