"""C-alpha geometry in float64: mdtraj's conventions and values (to float32 precision), unchanged by rigid motion to
float64 rounding, handed (a mirror image negates the dihedrals), the same however the frames are chunked."""

import mdtraj
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from westbench.geometry import ca_geometry
from westbench.geometry.ca_geometry import bond_angles, bond_lengths, dihedrals, radius_of_gyration
from westbench.geometry.features import ca_trajectory

FUNCTIONS = (radius_of_gyration, bond_lengths, bond_angles, dihedrals)


def chains(seed: int, frames: int, beads: int, spread: float = 0.2) -> np.ndarray:
    return np.cumsum(np.random.default_rng(seed).normal(0, spread, (frames, beads, 3)), axis=1)


def wrapped(difference: np.ndarray) -> np.ndarray:
    return (difference + np.pi) % (2 * np.pi) - np.pi


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), frames=st.integers(1, 20), beads=st.integers(4, 12))
def test_the_values_are_mdtrajs_to_float32_precision(seed, frames, beads):
    ca = chains(seed, frames, beads).astype(np.float32)
    trajectory = ca_trajectory(ca)
    index = np.arange(beads)
    np.testing.assert_allclose(radius_of_gyration(ca), mdtraj.compute_rg(trajectory), atol=1e-6)
    bonds = mdtraj.compute_distances(trajectory, np.column_stack([index[:-1], index[1:]]))
    np.testing.assert_allclose(bond_lengths(ca), bonds, atol=1e-6)
    angles = mdtraj.compute_angles(trajectory, np.column_stack([index[:-2], index[1:-1], index[2:]]))
    np.testing.assert_allclose(bond_angles(ca), angles, atol=1e-4)  # mdtraj's float32 arccos near 0 and pi
    quads = np.column_stack([index[:-3], index[1:-2], index[2:-1], index[3:]])
    assert np.abs(wrapped(dihedrals(ca) - mdtraj.compute_dihedrals(trajectory, quads))).max() < 1e-4


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), frames=st.integers(1, 20), beads=st.integers(4, 12), size=st.floats(0.01, 100.0))
def test_rigid_motion_changes_nothing_beyond_float64_rounding(seed, frames, beads, size):
    """A proper rotation and a translation (of every frame its own, far from the origin) move every value by
    float64 rounding only (about 1e-15 of the coordinates' size over a bond's: 1e-11 for a chain of 0.01 nm bonds
    50 nm out), below the contract's 1e-9."""
    ca = chains(seed, frames, beads) * size
    rotation = Rotation.random(frames, random_state=seed).as_matrix()
    moved = np.einsum("fij,fbj->fbi", rotation, ca) + np.random.default_rng(seed).uniform(-50, 50, (frames, 1, 3))
    for function in FUNCTIONS:
        before, after = function(ca), function(moved)
        scale = max(1.0, float(np.abs(before).max()))
        difference = wrapped(after - before) if function is dihedrals else after - before
        assert np.abs(difference).max() <= 1e-9 * scale, function.__name__


def test_a_mirror_image_negates_every_dihedral_and_keeps_the_rest():
    ca = chains(1, 10, 8)
    mirror = ca * np.array([-1.0, 1.0, 1.0])
    np.testing.assert_allclose(dihedrals(mirror), -dihedrals(ca), atol=1e-12)
    for function in (radius_of_gyration, bond_lengths, bond_angles):
        np.testing.assert_allclose(function(mirror), function(ca), rtol=1e-12)


def test_chunks_give_the_same_values(monkeypatch):
    ca = chains(2, 50, 7)
    whole = [function(ca) for function in FUNCTIONS]
    monkeypatch.setattr(ca_geometry, "CHUNK_VALUES", 7 * 3 * 3)  # three frames a chunk
    for function, value in zip(FUNCTIONS, whole):
        assert np.array_equal(function(ca), value), function.__name__


@pytest.mark.parametrize("beads", [1, 2, 3])
def test_too_short_chains_give_empty_columns(beads):
    ca = chains(3, 4, beads)
    assert bond_lengths(ca).shape == (4, beads - 1)
    assert bond_angles(ca).shape == (4, max(beads - 2, 0))
    assert dihedrals(ca).shape == (4, max(beads - 3, 0))


@pytest.mark.parametrize("seed", range(5))
def test_degenerate_chains_keep_their_values_under_rotation(seed):
    """Two beads at one point, or three on a line: their angle and dihedrals have no direction to measure, and get 0
    (mdtraj's value for them) before and after any rotation, never a sign of zero or float rounding's angle."""
    chain = np.array([[[0.0, 0, 0], [0.38, 0, 0], [0.38, 0, 0], [0.76, 0.1, 0], [1.14, 0.1, 0], [1.52, 0.1, 0]]])
    rotation = Rotation.random(1, random_state=seed).as_matrix()[0]
    moved = chain @ rotation.T + np.random.default_rng(seed).uniform(-5, 5, 3)
    for function in (bond_angles, dihedrals):
        np.testing.assert_allclose(function(moved), function(chain), atol=1e-9)
    assert bond_angles(chain)[0, 0] == 0.0 and np.all(dihedrals(chain)[0, :3] == 0.0)
