"""Recompute DSSP with mdtraj and compare."""

import csv
import sys

import mdtraj
from verifykit import load_json, main


def verify(checks):
    trajectory = mdtraj.load("/app/inputs/1L2Y.pdb")
    simple = mdtraj.compute_dssp(trajectory, simplified=True)
    full = mdtraj.compute_dssp(trajectory, simplified=False)
    residues = list(trajectory.topology.residues)
    rows = []
    with checks.check("dssp.csv has the contracted header, one row per residue"):
        with open("/app/output/dssp.csv") as handle:
            reader = csv.DictReader(handle)
            assert reader.fieldnames == ["residue", "resname", "helix", "strand", "coil"], f"header {reader.fieldnames}"
            rows = list(reader)
        assert [int(r["residue"]) for r in rows] == [r.resSeq for r in residues], "residue numbers differ from the PDB"
    with checks.check("fractions per residue (simplified DSSP over the models)"):
        assert len(rows) == len(residues), "row count"
        for row, i in zip(rows, range(len(residues))):
            for key, code in (("helix", "H"), ("strand", "E"), ("coil", "C")):
                assert abs(float(row[key]) - (simple[:, i] == code).mean()) < 1e-3, (
                    f"residue {row['residue']} {key} {row[key]}"
                )
    summary = {}
    with checks.check("summary.json readable"):
        summary = load_json("/app/output/summary.json")
    checks.require(
        "model 1 full DSSP string",
        summary.get("model1_full_dssp") == "".join(full[0]),
        f"{summary.get('model1_full_dssp')!r} vs {''.join(full[0])!r}",
    )
    expected = [residues[i].resSeq for i in range(len(residues)) if (simple[:, i] == "H").mean() >= 0.5]
    checks.require(
        "helix residues (>= half of the models)",
        summary.get("helix_residues") == expected,
        f"{summary.get('helix_residues')} vs {expected}",
    )


sys.exit(main(verify))
