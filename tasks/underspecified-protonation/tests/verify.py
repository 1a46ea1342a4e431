"""Accept every defensible convention (pH 7.0-7.5, any pdb2pqr force field); rerun pdb2pqr with the stated one and
compare; and check PROPKA's own output: the pKa of every group near the pH must be PROPKA 3's (at pH 7.4 pdb2pqr's
default states equal PROPKA's, so only a PROPKA-derived quantity shows that PROPKA was run)."""

import os
import re
import shutil
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


def residue_parameters(path):
    """Residue number -> its atoms' sorted (charge, radius) pairs, and residue number -> its residue names."""
    pairs, names = {}, {}
    for line in open(path):
        if line.startswith(("ATOM", "HETATM")):
            fields = line.split()
            number = fields[-6] if len(fields) >= 10 else fields[4]
            pairs.setdefault(number, []).append((round(float(fields[-2]), 4), round(float(fields[-1]), 4)))
            names.setdefault(number, set()).add(fields[3])
    return {k: sorted(v) for k, v in pairs.items()}, names


def propka_summaries(work):
    """PROPKA 3's pKa by group ("HIS 52") from propka3 on the input and from pdb2pqr's own PROPKA run (its log)."""
    found = []
    shutil.copy("/app/inputs/1PRB.pdb", work)
    subprocess.run(["propka3", "1PRB.pdb"], cwd=work, capture_output=True, text=True, timeout=300, check=True)
    texts = [open(os.path.join(work, "1PRB.pka")).read()]
    log = os.path.join(work, "ref.log")
    if os.path.isfile(log):
        texts.append(open(log).read())
    for text in texts:
        if "SUMMARY OF THIS PREDICTION" not in text:
            continue
        rows = [line.split() for line in text.split("SUMMARY OF THIS PREDICTION")[1].split("-----")[0].splitlines()[2:]]
        found.append({f"{f[0]} {int(f[1])}": float(f[3]) for f in rows if len(f) >= 5 and re.fullmatch(r"-?\d+", f[1])})
    return found


def group_key(key):
    """'HIS 52', 'HIS52', 'his 52 A' -> 'HIS 52'; None if not a PROPKA group name."""
    match = re.fullmatch(r"\s*([A-Za-z]{3}|N\+|C-)\s*(-?\d+)\s*([A-Za-z])?\s*", str(key))
    return f"{match.group(1).upper()} {int(match.group(2))}" if match else None


def verify(checks):
    result = {}
    with checks.check("protonation.json readable"):
        result = load_json("/app/output/protonation.json")
    ph, forcefield = result.get("ph"), str(result.get("forcefield", "")).upper()
    checks.require(
        "pH is a physiological choice (7.0-7.5)", isinstance(ph, (int, float)) and 7.0 <= ph <= 7.5, f"pH {ph}"
    )
    checks.require(
        "force field is one pdb2pqr knows", forcefield in FORCEFIELDS, f"forcefield {result.get('forcefield')}"
    )
    atoms, pdb2pqr_log = [], []
    with checks.check("protein.pqr readable, every atom of 1PRB kept with hydrogens", kind="science"):
        atoms = read_pqr("/app/output/protein.pqr")
        heavy = sum(
            1 for line in open("/app/inputs/1PRB.pdb") if line.startswith("ATOM") and line[76:78].strip() != "H"
        )
        assert sum(1 for a in atoms if not a[2].startswith("H")) >= heavy and len(atoms) > heavy, f"{len(atoms)} atoms"
    with checks.check("net charge matches pdb2pqr + PROPKA at the stated pH and force field"):
        assert forcefield in FORCEFIELDS and isinstance(ph, (int, float)), "no usable convention stated"
        work = tempfile.mkdtemp()
        run = subprocess.run(
            [
                "pdb2pqr",
                "--ff",
                forcefield,
                "--titration-state-method",
                "propka",
                "--with-ph",
                str(ph),
                "/app/inputs/1PRB.pdb",
                os.path.join(work, "ref.pqr"),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert run.returncode == 0, run.stderr[-400:]
        reference = round(sum(a[3] for a in read_pqr(os.path.join(work, "ref.pqr"))))
        pdb2pqr_log[:] = [work]
        got = round(sum(a[3] for a in atoms))
        assert got == reference and result.get("net_charge") == reference, (
            f"PQR {got}, reported {result.get('net_charge')}, pdb2pqr {reference}"
        )
    with checks.check(
        "protein.pqr has the stated force field's charges and radii (pdb2pqr at the stated pH, every residue)"
    ):
        # the stated force field, not only a charge it shares with the others: pdb2pqr's charges and radii per
        # residue (names may follow another --ffout; a histidine's tautomer is pdb2pqr's optimization's, either kept)
        assert pdb2pqr_log, "no pdb2pqr run with the stated pH and force field to compare with"
        got, got_names = residue_parameters("/app/output/protein.pqr")
        want, want_names = residue_parameters(os.path.join(pdb2pqr_log[0], "ref.pqr"))
        histidine = {"HIS", "HID", "HIE", "HIP", "HSD", "HSE", "HSP"}
        differ = [
            k
            for k in sorted(set(got) | set(want), key=lambda k: (len(k), k))
            if not (got_names.get(k, set()) | want_names.get(k, set())) & histidine and got.get(k) != want.get(k)
        ]
        assert not differ, (
            f"{len(differ)} residues ({', '.join(differ[:5])}) carry other charges or radii than pdb2pqr --ff "
            f"{forcefield} at pH {ph} gives"
        )
    with checks.check("His52 neutral (PROPKA pKa about 6), tautomer either"):
        names = {a[0] for a in atoms if a[1] == "52"}
        assert names and names <= {"HID", "HIE", "HSD", "HSE", "HIS"} and not names & {"HIP", "HSP"}, (
            f"His52 is {names}"
        )
        reported = {str(k): v for k, v in (result.get("histidines") or {}).items()}
        assert reported.get("52") in names, f"histidines {reported} vs PQR {names}"
    with checks.check("pka: PROPKA 3's predicted pKa of every group within 2 units of the pH (0.3 units)"):
        work = pdb2pqr_log[0] if pdb2pqr_log else tempfile.mkdtemp()
        summaries = propka_summaries(work)
        standalone = summaries[0]
        reported = (
            {group_key(k): v for k, v in (result.get("pka") or {}).items()}
            if isinstance(result.get("pka"), dict)
            else {}
        )
        assert reported, "protonation.json has no pka object (PROPKA's pKa of the groups near the pH)"
        assert None not in reported, (
            f"pka keys must name PROPKA groups as 'HIS 52', got {sorted(map(str, result['pka']))}"
        )
        near = sorted(k for k, v in standalone.items() if isinstance(ph, (int, float)) and abs(v - ph) <= 2.0)
        missing = [k for k in near if k not in reported]
        assert not missing, (
            f"PROPKA puts {', '.join(f'{k} at {standalone[k]:.2f}' for k in missing)} "
            f"within 2 units of pH {ph}: not reported"
        )
        wrong = [
            f"{k}: {v} (PROPKA {' or '.join(f'{s[k]:.2f}' for s in summaries if k in s) or 'has no such group'})"
            for k, v in reported.items()
            if not isinstance(v, (int, float)) or not any(k in s and abs(float(v) - s[k]) <= 0.3 for s in summaries)
        ]
        assert not wrong, "not PROPKA 3's pKa: " + "; ".join(wrong)
    assumptions = result.get("assumptions")
    checks.require(
        "assumptions stated (pH and force field among them)",
        isinstance(assumptions, list)
        and len(assumptions) >= 2
        and all(isinstance(a, str) and len(a) >= 10 for a in assumptions)
        and any("ph" in a.lower() for a in assumptions),
        "assumptions missing or do not mention the pH",
    )


sys.exit(main(verify))
