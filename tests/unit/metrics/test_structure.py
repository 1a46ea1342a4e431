"""C-alpha structure metrics: Rg against mdtraj's all-atom tools, contact maps, bonds, weights."""

import mdtraj
import numpy as np
import pytest

from westbench.geometry.ca_geometry import bond_angles, bond_lengths, dihedrals, radius_of_gyration
from westbench.metrics.structure import contact_map_difference, mean_distance_map, share_of_bonds_outside
from westbench.metrics.weighted import histogram, kde, weighted_mean


@pytest.fixture(scope="module")
def chignolin_ca(shared_structures):
    trajectory = mdtraj.load(str(shared_structures / "1L2Y.pdb"))  # 38 NMR models of Trp-cage
    return trajectory.atom_slice(trajectory.topology.select("name CA")).xyz


def test_rg_agrees_with_mdtraj_and_numpy(chignolin_ca, shared_structures):
    rg = radius_of_gyration(chignolin_ca)
    trajectory = mdtraj.load(str(shared_structures / "1L2Y.pdb"))
    assert np.allclose(rg, mdtraj.compute_rg(trajectory.atom_slice(trajectory.topology.select("name CA"))), atol=1e-6)
    centred = chignolin_ca - chignolin_ca.mean(axis=1, keepdims=True)
    assert np.allclose(rg, np.sqrt((centred**2).sum(axis=2).mean(axis=1)), atol=1e-6)
    assert rg.shape == (38,) and 0.5 < rg.mean() < 1.0


def test_geometry_of_a_known_chain():
    # A planar zig-zag: bonds 0.38 nm, angles 120 degrees, dihedrals 180 degrees.
    xs = np.arange(6) * 0.38 * np.cos(np.pi / 6)
    ys = np.where(np.arange(6) % 2, 0.38 * np.sin(np.pi / 6), 0.0)
    ca = np.column_stack([xs, ys, np.zeros(6)])[None].astype(np.float32)
    assert np.allclose(bond_lengths(ca), 0.38, atol=1e-5)
    assert np.allclose(np.degrees(bond_angles(ca)), 120.0, atol=1e-3)
    assert np.allclose(np.abs(np.degrees(dihedrals(ca))), 180.0, atol=1e-3)


def test_contact_map_of_a_stretched_copy(chignolin_ca):
    """Scaling every structure by 1.1 about its centre moves each pair 10 % farther apart: positive, exact."""
    centre = chignolin_ca.mean(axis=1, keepdims=True)
    stretched = centre + 1.1 * (chignolin_ca - centre)
    difference = contact_map_difference(chignolin_ca, stretched)
    reference = mean_distance_map(chignolin_ca)
    assert np.allclose(difference, 0.1 * reference, atol=1e-4)
    assert (difference[~np.eye(20, dtype=bool)] > 0).all()
    # Right cells: entry (i, j) is the mean distance of residues i and j, in Angstrom.
    i, j = 2, 17
    assert reference[i, j] == pytest.approx(
        10 * np.linalg.norm(chignolin_ca[:, i] - chignolin_ca[:, j], axis=1).mean(), rel=1e-5
    )
    assert np.allclose(reference, reference.T) and np.all(np.diag(reference) == 0)


def test_integer_weights_equal_replicated_frames(chignolin_ca):
    counts = np.arange(1, 39) % 4 + 1
    replicated = np.repeat(chignolin_ca, counts, axis=0)
    assert np.allclose(mean_distance_map(chignolin_ca, counts), mean_distance_map(replicated), atol=1e-5)
    rg, rg_rep = radius_of_gyration(chignolin_ca), radius_of_gyration(replicated)
    assert weighted_mean(rg, counts) == pytest.approx(rg_rep.mean(), rel=1e-6)
    edges = np.linspace(0.5, 1.0, 11)
    assert np.allclose(histogram(rg, edges, counts), histogram(rg_rep, edges))
    grid = np.linspace(0.5, 1.0, 7)
    assert np.allclose(kde(rg, grid, counts, bandwidth=0.3), kde(rg_rep, grid, bandwidth=0.3), rtol=1e-6)


def test_exploded_bonds_are_counted(chignolin_ca):
    assert share_of_bonds_outside(chignolin_ca) == 0.0  # NMR models: 3.8 A bonds
    exploded = chignolin_ca * 1.5
    assert share_of_bonds_outside(exploded) == pytest.approx(1.0)
    half = np.concatenate([chignolin_ca, exploded])
    assert share_of_bonds_outside(half, weights=np.r_[np.full(38, 3.0), np.full(38, 1.0)]) == pytest.approx(0.25)
