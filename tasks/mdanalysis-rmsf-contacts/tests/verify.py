"""Recompute RMSF (aligned on C-alpha) and Q (hard cut 4.5 A) with MDAnalysis and compare.

The reference analysis depends on the image alone, not on the agent: it is read from reference.json beside this
file (the verifier's /tests, which no agent sees or writes) when the tools' versions and the files it reads are the
ones it was made from, else computed again. ``python3 verify.py --reference`` writes a new reference.json.
"""

import csv
import os
import sys

import numpy as np
from verifykit import close, count_fraction, load_json, main, sha256_of, stored_reference, versions, write_reference


def reference():
    import MDAnalysis as mda
    from MDAnalysis.analysis import align, contacts, rms

    native = mda.Universe("/app/inputs/native.pdb")
    u = mda.Universe("/app/inputs/topology.pdb", "/app/inputs/trajectory.dcd")
    align.AlignTraj(u, native, select="name CA", in_memory=True).run()
    ca = u.select_atoms("name CA")
    fluctuation = rms.RMSF(ca).run().results.rmsf / 10.0
    sel_a, sel_b = "resid 1-5 and not element H", "resid 6-10 and not element H"
    u2 = mda.Universe("/app/inputs/topology.pdb", "/app/inputs/trajectory.dcd")
    q = contacts.Contacts(
        u2,
        select=(sel_a, sel_b),
        refgroup=(native.select_atoms(sel_a), native.select_atoms(sel_b)),
        method="hard_cut",
        radius=4.5,
    ).run()
    return list(ca.resids), fluctuation, q.results.timeseries[:, 1], int(np.count_nonzero(q.initial_contacts[0]))


def read(path, header):
    with open(path) as handle:
        reader = csv.DictReader(handle)
        assert reader.fieldnames == header, f"header {reader.fieldnames}"
        return list(reader)


REFERENCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference.json")


def provenance():
    """What the reference depends on: the tools' versions and the files it reads."""
    inputs = ("/app/inputs/native.pdb", "/app/inputs/topology.pdb", "/app/inputs/trajectory.dcd")
    return {"versions": versions("MDAnalysis", "numpy"), "sha256": sha256_of(*inputs)}


def plain(ref):
    """The reference as plain JSON (arrays as lists)."""
    resids, fluctuation, q, n_native = ref
    return [[int(r) for r in resids], fluctuation.tolist(), q.tolist(), int(n_native)]


def stored():
    """The reference, stored: its arrays back as arrays."""
    ref = stored_reference(REFERENCE, provenance(), lambda: plain(reference()))
    resids, fluctuation, q, n_native = ref
    return resids, np.array(fluctuation), np.array(q), n_native


def verify(checks):
    resids, fluctuation, q, n_native = stored()
    rows = []
    with checks.check("rmsf.csv has the contracted header and one row per residue"):
        rows = read("/app/output/rmsf.csv", ["resid", "resname", "rmsf_nm"])
        assert [int(r["resid"]) for r in rows] == [int(r) for r in resids], "residues differ"
    with checks.check("RMSF matches (2 %, nm)"):
        got = np.array([float(r["rmsf_nm"]) for r in rows])
        assert got.shape == fluctuation.shape and np.allclose(got, fluctuation, rtol=0.02, atol=2e-4), (
            f"max difference {np.abs(got - fluctuation).max() if got.shape == fluctuation.shape else 'shape'} nm"
        )
    frames = []
    with checks.check("q.csv has the contracted header and one row per frame"):
        frames = read("/app/output/q.csv", ["frame", "q"])
        assert [int(r["frame"]) for r in frames] == list(range(len(q))), f"{len(frames)} rows, {len(q)} frames"
    with checks.check("Q per frame matches (the native contacts formed, of n_native, exactly)"):
        # each frame's Q is a count of the reference's native contacts over their number (count_fraction): one
        # contact off, or another denominator, fails; a tenth of a contact allows Q written to 2 decimals
        got = np.array([float(r["q"]) for r in frames])
        formed = np.rint(q * n_native).astype(int)
        assert got.shape == q.shape, f"{got.shape[0]} values, {q.shape[0]} frames"
        wrong = [i for i, (v, c) in enumerate(zip(got, formed)) if not count_fraction(v, int(c), n_native)]
        assert not wrong, f"frames {wrong[:5]}: Q {got[wrong[0]]} vs {formed[wrong[0]]} of {n_native} native contacts"
    summary = {}
    with checks.check("summary.json readable"):
        summary = load_json("/app/output/summary.json")
    checks.require(
        "most flexible residue",
        summary.get("most_flexible_resid") == int(resids[int(np.argmax(fluctuation))]),
        f"{summary.get('most_flexible_resid')} vs {resids[int(np.argmax(fluctuation))]}",
    )
    with checks.check("mean Q and number of native contacts"):
        # the mean over every frame, deterministic: 0.0025 allows 2 decimals (0.38 for 0.3824); the first frame left
        # out (0.3876, 0.0053 off) was at the edge of the earlier 0.005
        assert close(summary["mean_q"], q.mean(), rel=0, abs_=0.0025), f"mean_q {summary['mean_q']} vs {q.mean():.4f}"
        assert summary["n_native_contacts"] == n_native, f"{summary['n_native_contacts']} vs {n_native}"


if sys.argv[1:] == ["--reference"]:
    write_reference(REFERENCE, provenance(), plain(reference()))
else:
    sys.exit(main(verify))
