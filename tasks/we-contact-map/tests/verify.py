"""Recompute the weighted distance map and contacts with mdtraj."""

import csv
import itertools
import sys

import h5py
import mdtraj
import numpy as np
from verifykit import main


def ca_trajectory(ca):
    """An mdtraj trajectory of C-alpha atoms only."""
    top = mdtraj.Topology()
    chain = top.add_chain()
    for i in range(ca.shape[1]):
        top.add_atom("CA", mdtraj.element.carbon, top.add_residue("ALA", chain, resSeq=i + 1))
    return mdtraj.Trajectory(ca.astype(np.float64), top)


def verify(checks):
    with h5py.File("/app/inputs/we_export.h5", "r") as handle:
        ca, weight = handle["ca"][:], handle["weight"][:]
    weight = weight / weight.sum()
    n = ca.shape[1]
    pairs = np.array(list(itertools.combinations(range(n), 2)))
    distances = mdtraj.compute_distances(ca_trajectory(ca), pairs)
    expected = np.zeros((n, n))
    expected[pairs[:, 0], pairs[:, 1]] = expected[pairs[:, 1], pairs[:, 0]] = weight @ distances
    probability = weight @ (distances < 0.8)
    contacts = {(int(i), int(j)): p for (i, j), p in zip(pairs, probability) if j - i >= 3 and p >= 0.5}
    matrix = None
    with checks.check("distance_map.npy is a (10, 10) array"):
        matrix = np.load("/app/output/distance_map.npy")
        assert matrix.shape == (n, n), f"shape {matrix.shape}"
    with checks.check("symmetric with a zero diagonal"):
        assert np.allclose(matrix, matrix.T) and np.allclose(np.diag(matrix), 0), "not symmetric or diagonal not zero"
    with checks.check("weighted mean distances match mdtraj"):
        assert np.allclose(matrix, expected, atol=1e-4), f"largest difference {np.abs(matrix - expected).max():.2e} nm"
    rows = None
    with checks.check("contacts.csv has header i,j,probability"):
        with open("/app/output/contacts.csv") as handle:
            reader = csv.DictReader(handle)
            assert reader.fieldnames == ["i", "j", "probability"], f"header {reader.fieldnames}"
            rows = list(reader)
    with checks.check("the contact pairs are the weighted ones"):
        found = [(int(r["i"]), int(r["j"])) for r in rows]
        assert found == sorted(contacts), f"pairs {found}, expected {sorted(contacts)}"
    with checks.check("contact probabilities match"):
        assert rows and all(abs(float(r["probability"]) - contacts[(int(r["i"]), int(r["j"]))]) < 1e-4 for r in rows), (
            "probabilities differ"
        )


sys.exit(main(verify))
