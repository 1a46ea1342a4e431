"""Recompute the projection (mdtraj distances) and the coverage grid (numpy histograms)."""

import itertools
import sys

import h5py
import mdtraj
import numpy as np
from verifykit import close, load_json, main


def verify(checks):
    with h5py.File("/app/inputs/we_export.h5", "r") as handle:
        ca = handle["ca"][:].astype(np.float64)
    model = np.load("/app/inputs/tica_model.npz")
    reference = np.load("/app/inputs/groundtruth_tics.npy")[:, :2]
    top = mdtraj.Topology()
    chain = top.add_chain()
    for i in range(ca.shape[1]):
        top.add_atom("CA", mdtraj.element.carbon, top.add_residue("ALA", chain, resSeq=i + 1))
    features = mdtraj.compute_distances(mdtraj.Trajectory(ca, top), list(itertools.combinations(range(ca.shape[1]), 2)))
    expected = features @ model["projection"] + model["offset"]
    edges = [np.linspace(reference[:, d].min(), reference[:, d].max(), 21) for d in range(2)]
    reference_hist = np.histogram2d(reference[:, 0], reference[:, 1], bins=edges)[0] > 0
    we_hist = np.histogram2d(expected[:, 0], expected[:, 1], bins=edges)[0] > 0
    n_reference, n_covered = int(reference_hist.sum()), int((reference_hist & we_hist).sum())
    tics = None
    with checks.check("we_tics.npy has one row of two TICs per frame"):
        tics = np.load("/app/output/we_tics.npy")
        assert tics.shape == (len(ca), 2), f"shape {tics.shape}, expected {(len(ca), 2)}"
    with checks.check("projection matches the TICA model"):
        assert np.allclose(tics, expected, atol=1e-3 * np.abs(expected).max()), "projected TICs differ"
    result = {}
    with checks.check("coverage.json readable with bins 20"):
        result = load_json("/app/output/coverage.json")
        assert result["bins"] == 20, f"bins {result['bins']}"
    checks.require(
        "ground-truth cells",
        result.get("reference_cells") == n_reference,
        f"{result.get('reference_cells')} != {n_reference}",
    )
    checks.require(
        "covered cells", result.get("covered_cells") == n_covered, f"{result.get('covered_cells')} != {n_covered}"
    )
    with checks.check("coverage"):
        assert close(result["coverage"], n_covered / n_reference, rel=1e-6), (
            f"{result['coverage']} != {n_covered / n_reference:.6f}"
        )


sys.exit(main(verify))
