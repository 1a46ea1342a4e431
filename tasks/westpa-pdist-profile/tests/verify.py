"""Rerun WESTPA's w_pdist on the run and compare the agent's histogram file, profile and summary with it.

What it gives depends on the image alone (its west.h5 and WESTPA), not on the agent: it is read from reference.json
beside this file (the verifier's /tests, which no agent sees or writes) when the tools' versions and west.h5 are the
ones it was made from, else made again. ``python3 verify.py --reference`` writes a new reference.json.
"""

import csv
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np
from verifykit import close, load_json, main, sha256_of, stored_reference, versions, write_reference

OUT = "/app/output"
BINS = "[[-2.05 + 0.1*i for i in range(42)]]"


def reference(workdir):
    """w_pdist's histograms for the requested bins and iterations (on a copy: WESTPA opens west.h5 read-write)."""
    west = shutil.copy("/app/inputs/west.h5", f"{workdir}/west.h5")
    subprocess.run(
        [
            "w_pdist",
            "-W",
            west,
            "--serial",
            "-b",
            BINS,
            "--first-iter",
            "41",
            "--last-iter",
            "80",
            "-o",
            f"{workdir}/pdist.h5",
        ],
        check=True,
        capture_output=True,
        cwd=workdir,
    )
    with h5py.File(f"{workdir}/pdist.h5", "r") as pdist:
        return pdist["histograms"][...], pdist["midpoints_0"][...], pdist["n_iter"][...]


REFERENCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference.json")


def provenance():
    """What w_pdist's histograms depend on: the tools' versions and west.h5."""
    return {"versions": versions("westpa", "h5py", "numpy"), "sha256": sha256_of("/app/inputs/west.h5")}


def computed():
    """reference() in a scratch folder, as plain JSON (arrays as lists)."""
    with tempfile.TemporaryDirectory() as workdir:
        return [array.tolist() for array in reference(workdir)]


def verify(checks):
    histograms, x, n_iter = (np.array(v) for v in stored_reference(REFERENCE, provenance(), computed))
    p = histograms.mean(axis=0)
    p = p / p.sum()
    with np.errstate(divide="ignore"):
        free = -np.log(p)
    free -= free[np.isfinite(free)].min()
    with checks.check("pdist.h5 is w_pdist's output for the 41 bins and iterations 41-80"):
        with h5py.File(f"{OUT}/pdist.h5", "r") as pdist:
            got, got_x, got_iter = pdist["histograms"][...], pdist["midpoints_0"][...], pdist["n_iter"][...]
        assert np.array_equal(got_iter, n_iter), f"iterations {got_iter.min()}-{got_iter.max()}, expected 41-80"
        assert got.shape == histograms.shape and np.allclose(got_x, x, atol=1e-9), (
            f"histograms {got.shape}, expected {histograms.shape}"
        )
        assert np.allclose(got, histograms, rtol=1e-6, atol=1e-12), "histograms differ"
    rows = []
    with checks.check("profile.csv has header x,probability,free_energy_kt and 41 rows in order of x"):
        with open(f"{OUT}/profile.csv") as handle:
            reader = csv.DictReader(handle)
            assert reader.fieldnames == ["x", "probability", "free_energy_kt"], f"header {reader.fieldnames}"
            rows = list(reader)
        assert len(rows) == len(x) and np.allclose([float(r["x"]) for r in rows], x, atol=1e-6), f"{len(rows)} rows"
    with checks.check("probabilities: the normalised average of the per-iteration histograms"):
        got = np.array([float(r["probability"]) for r in rows])
        assert got.shape == p.shape and np.allclose(got, p, rtol=1e-5, atol=1e-9), "probabilities differ"
    with checks.check("free energy -ln p shifted to minimum 0, inf where empty"):
        got = np.array([float(r["free_energy_kt"]) for r in rows])
        finite = np.isfinite(free)
        assert got.shape == free.shape and np.array_equal(np.isfinite(got), finite), (
            "empty bins are not inf (or inf elsewhere)"
        )
        assert np.allclose(got[finite], free[finite], rtol=1e-5, atol=1e-6), "free energies differ"
    summary = {}
    with checks.check("summary.json readable"):
        summary = load_json(f"{OUT}/summary.json")
    number = lambda key: float(summary[key]) if isinstance(summary.get(key), (int, float)) else float("nan")
    centre = int(np.argmin(abs(x)))
    checks.require(
        "barrier = F at x = 0",
        close(number("barrier_kt"), free[centre], rel=1e-4, abs_=1e-5),
        f"{summary.get('barrier_kt')} vs {free[centre]:.5g}",
    )
    checks.require(
        "minimum at the bin centre where F = 0",
        close(number("minimum_x"), x[np.argmin(free)], rel=0, abs_=1e-6),
        f"{summary.get('minimum_x')} vs {x[np.argmin(free)]:.2f}",
    )
    checks.require(
        "probability of x < 0",
        close(number("probability_x_below_0"), p[x < -1e-9].sum(), rel=1e-5, abs_=1e-8),
        f"{summary.get('probability_x_below_0')} vs {p[x < -1e-9].sum():.6g}",
    )
    checks.require("iterations [41, 80]", summary.get("iterations") == [41, 80], f"{summary.get('iterations')}")


if sys.argv[1:] == ["--reference"]:
    write_reference(REFERENCE, provenance(), computed())
else:
    sys.exit(main(verify))
