"""Which C-alpha pairs TICA sees: all for small proteins, native contacts plus seeded random pairs above the cap."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.config import section_defaults
from westbench.errors import WestbenchError
from westbench.geometry.features import pair_indices, pairwise_distances
from westbench.tica.pair_selection import SELECTIONS, PairFeatures, choose_features, residues_of_pairs

from .synthetic import synthetic_protein


@pytest.fixture(scope="module")
def large():
    """A generated 250-residue protein: 2 runs of 200 frames and its native structure."""
    runs, states, native = synthetic_protein(n_residues=250, n_frames=200, n_runs=2, seed=5)
    return runs, native


def test_small_proteins_keep_all_pairs_the_published_features():
    runs, _, native = synthetic_protein(n_residues=10, n_frames=20, n_runs=1, seed=0)
    chosen = choose_features(10, None, native, seed=1)
    assert chosen.selection == "all" and chosen.n_features == 45 and "published" in chosen.reason
    assert np.array_equal(chosen.compute(runs[0]), pairwise_distances(runs[0]))
    # lambda repressor (80 residues, 3,160 pairs), paper.yaml's largest: still all pairs by default
    assert choose_features(80, None, None).selection == "all"
    assert section_defaults("tica.features")["all_pairs_up_to"] >= 80 * 79 // 2


def test_a_250_residue_protein_gets_native_contacts_topped_up_to_the_cap(large):
    runs, native = large
    settings = {"contact_cutoff_nm": 0.7}  # the default cap: 2,000
    chosen = choose_features(250, settings, native, seed=7)
    every = pair_indices(250)
    apart = every[every[:, 1] - every[:, 0] >= 3]
    d = np.linalg.norm(native[apart[:, 0]] - native[apart[:, 1]], axis=1)
    contacts = {tuple(p) for p in apart[d <= 0.7]}
    chosen_set = {tuple(p) for p in chosen.pairs}
    assert chosen.selection == "contacts" and chosen.n_features == 2000
    assert len(contacts) < 2000 and contacts <= chosen_set  # every native contact, then random pairs
    assert chosen.settings["native_contacts"] == len(contacts) and chosen.settings["seed"] == 7
    assert "31,125 pairs of 250 residues are more than tica.features.all_pairs_up_to 3,200" in chosen.reason
    assert chosen.compute(runs[0][:5]).shape == (5, 2000)
    # the same seed gives the same pairs, another seed others; more contacts than the cap: a subset of them
    assert np.array_equal(choose_features(250, settings, native, seed=7).pairs, chosen.pairs)
    assert not np.array_equal(choose_features(250, settings, native, seed=8).pairs, chosen.pairs)
    few = choose_features(250, {"max_features": 100}, native, seed=7)
    assert few.n_features == 100 and {tuple(p) for p in few.pairs} <= {
        tuple(p) for p in apart[np.linalg.norm(native[apart[:, 0]] - native[apart[:, 1]], axis=1) <= 1.0]
    }


def test_how_to_reduce_names_the_keys_of_each_selection(large):
    _, native = large
    assert "tica.features.all_pairs_up_to below 2,016" in choose_features(64, None, None).how_to_reduce(17)
    assert "tica.features.max_features: 17" in choose_features(64, None, None).how_to_reduce(17)
    stride = choose_features(64, {"pairs": "stride", "stride": 2}, None)
    assert "raise tica.features.stride (now 2: 1,008 pairs)" in stride.how_to_reduce(17)
    reduced = choose_features(250, None, native)
    assert reduced.how_to_reduce(700) == "lower tica.features.max_features from 2,000 to 700"


@pytest.mark.parametrize(
    "settings",
    [{"pairs": "random", "max_features": 2}, {"pairs": "contacts", "max_features": 5}, {"pairs": "all"}, {}],
)
def test_how_to_reduce_never_suggests_a_no_op_or_fewer_features_than_a_tica_needs(settings):
    """The issue's "lower max_features from 2 to 2": no change is suggested where it changes nothing (as many
    features or more) or cannot fit (fewer than the 2 a TICA needs); the caller then names only more data."""
    chosen = choose_features(12, settings, synthetic_protein(12, 5, 1, seed=1)[2], seed=1)
    for count in range(0, chosen.n_features + 3):
        message = chosen.how_to_reduce(count)
        if count >= chosen.n_features or count < 2:
            assert message == "", (count, message)
        else:
            assert f" {count:,}" in message and f"from {count:,} to" not in message, message


def test_stride_random_and_errors(large):
    _, native = large
    stride = choose_features(30, {"pairs": "stride", "stride": 4}, None)
    assert np.array_equal(stride.pairs, pair_indices(30)[::4])
    random = choose_features(30, {"pairs": "random", "max_features": 50}, None, seed=3)
    assert random.n_features == 50 and (np.diff(random.pairs, axis=1) >= 3).all()
    with pytest.raises(WestbenchError, match="need the native structure"):
        choose_features(250, {"pairs": "contacts"}, None)
    with pytest.raises(WestbenchError, match="reference structure .* 250 C-alpha atoms, the trajectories 249"):
        choose_features(249, {"pairs": "contacts"}, native)
    with pytest.raises(WestbenchError, match="distances between 250 C-alpha atoms"):
        PairFeatures.all_pairs(250).compute(np.zeros((2, 10, 3)))


def test_description_round_trip_and_old_models():
    chosen = choose_features(40, {"pairs": "random", "max_features": 30}, None, seed=2)
    again = PairFeatures.from_description(chosen.describe(), chosen.pairs)
    assert np.array_equal(again.pairs, chosen.pairs) and again.describe() == chosen.describe()
    with pytest.raises(WestbenchError, match="do not belong together"):
        PairFeatures.from_description(chosen.describe(), chosen.pairs[:-1])
    assert residues_of_pairs(45) == 10 and residues_of_pairs(31125) == 250
    with pytest.raises(WestbenchError, match="fit the TICA model again"):
        residues_of_pairs(44)


@settings(max_examples=60, deadline=None)
@given(
    n_residues=st.integers(2, 260),
    selection=st.sampled_from(SELECTIONS),
    max_features=st.integers(2, 4000),
    all_up_to=st.integers(1, 4000),
    stride=st.integers(1, 9),
    separation=st.integers(1, 6),
    cutoff=st.floats(0.3, 3.0),
    seed=st.integers(0, 2**31 - 1),
)
def test_every_selection_gives_valid_unique_row_major_pairs(
    n_residues, selection, max_features, all_up_to, stride, separation, cutoff, seed
):
    reference = np.cumsum(np.random.default_rng(seed).normal(scale=0.22, size=(n_residues, 3)), axis=0)
    settings = {
        "pairs": selection,
        "max_features": max_features,
        "all_pairs_up_to": all_up_to,
        "stride": stride,
        "min_separation": separation,
        "contact_cutoff_nm": cutoff,
    }
    chosen = choose_features(n_residues, settings, reference, seed)
    pairs, every = chosen.pairs, n_residues * (n_residues - 1) // 2
    assert chosen.selection != "auto" and chosen.n_features == len(pairs)
    assert ((0 <= pairs[:, 0]) & (pairs[:, 0] < pairs[:, 1]) & (pairs[:, 1] < n_residues)).all()
    assert len({tuple(p) for p in pairs}) == len(pairs)  # unique
    keys = pairs[:, 0] * n_residues + pairs[:, 1]
    assert (np.diff(keys) > 0).all()  # row-major, the order of all pairs
    if chosen.selection == "all":
        assert len(pairs) == every and (selection == "all" or every <= all_up_to)
    if chosen.selection in ("contacts", "random"):
        assert len(pairs) <= max_features and (np.diff(pairs, axis=1) >= separation).all()
    if selection == "auto":
        assert (chosen.selection == "all") == (every <= all_up_to)
