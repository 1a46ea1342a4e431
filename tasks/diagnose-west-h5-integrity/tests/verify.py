"""Recompute the integrity checks from the per-segment data with h5py."""

import sys

import h5py
import numpy as np
from verifykit import load_json, main


def verify(checks):
    with h5py.File("/app/inputs/west.h5", "r") as h5:
        names = sorted(h5["iterations"])
        totals = [float(h5["iterations"][n]["seg_index"]["weight"].sum()) for n in names]
        counts = [len(h5["iterations"][n]["seg_index"]) for n in names]
        nonfinite = [
            (int(n.split("_")[1]), int(k))
            for n in names
            for k in np.nonzero(~np.isfinite(h5["iterations"][n]["pcoord"][:]).all(axis=(1, 2)))[0]
        ]
        consistent = bool(np.allclose(h5["summary"]["norm"][: len(names)], totals, atol=1e-6, rtol=0))
    errors = [(int(n.split("_")[1]), t) for n, t in zip(names, totals) if abs(t - 1) > 1e-6]
    report = {}
    with checks.check("integrity.json readable"):
        report = load_json("/app/output/integrity.json")
    checks.require(
        "iterations and segments per iteration",
        report.get("n_iterations") == len(names) and report.get("segments_per_iteration") == counts,
        "counts differ",
    )
    with checks.check("weight errors: the damaged iteration and its total weight"):
        got = [(int(e["iteration"]), float(e["total_weight"])) for e in report["weight_errors"]]
        assert [g[0] for g in got] == [e[0] for e in errors], (
            f"iterations {[g[0] for g in got]} vs {[e[0] for e in errors]}"
        )
        assert all(abs(g[1] - e[1]) < 1e-9 for g, e in zip(got, errors)), "total weights differ"
    with checks.check("non-finite progress coordinates"):
        got = [(int(e["iteration"]), int(e["segment"])) for e in report["nonfinite_pcoord"]]
        assert got == nonfinite, f"{got} vs {nonfinite}"
    checks.require(
        "the /summary table is found inconsistent with the segments",
        report.get("summary_consistent") is consistent,
        f"summary_consistent {report.get('summary_consistent')}",
    )


sys.exit(main(verify))
