"""Rerun PROPKA 3 on the input and compare the table and the summary."""

import csv
import os
import re
import shutil
import subprocess
import sys
import tempfile

from verifykit import load_json, main


def propka():
    work = tempfile.mkdtemp()
    shutil.copy("/app/inputs/1PRB.pdb", work)
    subprocess.run(["propka3", "1PRB.pdb"], cwd=work, capture_output=True, text=True, timeout=300, check=True)
    text = open(os.path.join(work, "1PRB.pka")).read()
    rows = [line.split() for line in text.split("SUMMARY OF THIS PREDICTION")[1].split("-----")[0].splitlines()[2:]]
    rows = [(f[0], int(f[1]), f[2], float(f[3]), float(f[4])) for f in rows if len(f) >= 5]
    return rows, float(re.search(r"The pI is\s+([\d.]+) \(folded\)", text).group(1))


def verify(checks):
    reference, pi = propka()
    table = []
    with checks.check("pka.csv has the contracted header"):
        with open("/app/output/pka.csv") as handle:
            reader = csv.DictReader(handle)
            assert reader.fieldnames == ["group", "residue", "chain", "pka", "model_pka", "shift"], (
                f"header {reader.fieldnames}"
            )
            table = list(reader)
    checks.require(
        "one row per PROPKA group, in order",
        [(r["group"], int(r["residue"])) for r in table] == [(g, n) for g, n, *_ in reference],
        f"{len(table)} rows; PROPKA has {len(reference)}",
    )
    with checks.check("pKa, model pKa and shift match PROPKA (0.01)"):
        assert len(table) == len(reference), "row count differs"
        for row, (g, n, c, pka, model) in zip(table, reference):
            assert abs(float(row["pka"]) - pka) <= 0.011 and abs(float(row["model_pka"]) - model) <= 0.011, (
                f"{g} {n}: {row['pka']} vs {pka}"
            )
            assert abs(float(row["shift"]) - (pka - model)) <= 0.021, f"{g} {n}: shift {row['shift']}"
    summary = {}
    with checks.check("summary.json readable"):
        summary = load_json("/app/output/summary.json")
    top = max(reference, key=lambda row: abs(row[3] - row[4]))
    with checks.check(f"most shifted group ({top[0]} {top[1]})"):
        most = summary["most_shifted"]
        assert (most["group"], int(most["residue"])) == (top[0], top[1]) and abs(
            float(most["shift"]) - (top[3] - top[4])
        ) <= 0.021, f"{most}"
    with checks.check("isoelectric point (folded) and His52 at pH 7"):
        assert abs(float(summary["isoelectric_point_folded"]) - pi) <= 0.011, (
            f"pI {summary['isoelectric_point_folded']} vs {pi}"
        )
        his = next(r for r in reference if r[0] == "HIS" and r[1] == 52)
        assert summary["his52_charged_at_ph7"] is (his[3] > 7.0), f"His52 pKa {his[3]}: charged {his[3] > 7.0}"


sys.exit(main(verify))
