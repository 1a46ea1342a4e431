"""C-alpha features by bytes: chunks sized by a byte budget, the per-residue positions a long chain is scored on."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from westbench.geometry.features import (
    CHUNK_BYTES,
    MAX_SCORED_POSITIONS,
    frames_per_chunk,
    mean_pairwise_distances,
    pairwise_distances,
    scored_columns,
    scored_positions,
)


@given(values=st.integers(0, 10**7), size=st.sampled_from([4, 8, 12]), budget=st.integers(1, 2**30))
def test_a_chunk_fits_its_byte_budget_or_is_one_frame(values, size, budget):
    frames = frames_per_chunk(values, size, budget)
    assert frames >= 1
    assert frames == 1 or frames * max(values, 1) * size <= budget
    assert (frames + 1) * max(values, 1) * size > budget


@pytest.mark.parametrize("residues", [12, 600])
def test_mean_pairwise_distances_chunk_by_bytes_with_the_same_means(residues):
    """5,000 frames of a 600-residue protein were 3.6 GB of distances in one chunk: now about CHUNK_BYTES, whatever
    the protein's size, and the same means as all frames at once."""
    rng = np.random.default_rng(residues)
    ca = np.cumsum(rng.normal(0, 0.2, (40, residues, 3)), axis=1).astype(np.float32)
    weights = rng.random(40)
    expected = (weights / weights.sum()) @ pairwise_distances(ca).astype(np.float64)
    assert np.allclose(mean_pairwise_distances(ca, weights), expected, rtol=1e-6)
    assert np.allclose(mean_pairwise_distances(ca, weights, chunk_frames=3), expected, rtol=1e-6)
    pairs = residues * (residues - 1) // 2
    assert frames_per_chunk(pairs, 12) * pairs * 12 <= max(CHUNK_BYTES, pairs * 12)


@given(count=st.integers(0, 2000), limit=st.integers(2, 300))
def test_scored_positions_are_all_or_evenly_spaced_ends_included(count, limit):
    positions = scored_positions(count, limit)
    assert np.array_equal(positions, np.unique(positions)) and len(positions) == min(count, limit)
    if count > limit:
        assert positions[0] == 0 and positions[-1] == count - 1
        gaps = np.diff(positions)
        assert gaps.max() - gaps.min() <= 1  # evenly spaced
    else:
        assert np.array_equal(positions, np.arange(count))


def test_a_long_chain_is_scored_on_the_same_evenly_spaced_positions_for_every_engine():
    """The suite's bonds, angles and dihedrals of a 150-residue chain: MAX_SCORED_POSITIONS columns, the same for the
    ground truth and every engine; a short chain keeps all of them (the array itself)."""
    from westbench.metrics.suite import MetricSuite

    rng = np.random.default_rng(1)

    def frames(n, residues):
        ca = np.cumsum(rng.normal(0, 0.2, (n, residues, 3)), axis=1).astype(np.float32)
        return {"ca": ca, "tics": rng.normal(size=(n, 4)), "weight": np.full(n, 1 / n), "traj": np.arange(n) // 10}

    groundtruth = frames(40, 150)
    for model in (frames(30, 150), frames(60, 150)):
        suite = MetricSuite(groundtruth, model, {"macrostate_clusters": 5, "macrostates": 2})
        for name, positions in (("bonds", 149), ("angles", 148), ("dihedrals", 147)):
            kept = scored_positions(positions)
            assert suite.reference[name].shape[1] == suite.sample[name].shape[1] == MAX_SCORED_POSITIONS
            assert np.allclose(suite.sample[name], scored_columns(MetricSuite(model, model).sample[name]))
            assert len(kept) == MAX_SCORED_POSITIONS
    short = np.zeros((3, 40))
    assert scored_columns(short) is short
