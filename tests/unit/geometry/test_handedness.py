"""westbench.geometry.handedness and the chirality check's frame-by-frame estimate: hands compared like for like."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from westbench.geometry.ensemble_checks import matched_handedness
from westbench.geometry.handedness import (
    ACHIRAL_HANDEDNESS,
    MAX_MIRROR_HANDEDNESS,
    hand_verdict,
    handedness_profile,
)
from westbench.geometry.sanity import engine_sanity

from .chains import chain_ensemble

MIRROR = np.array([1.0, 1.0, -1.0])


@pytest.mark.parametrize("seed", range(4))
def test_the_mirror_of_an_engine_that_samples_one_state_is_caught_where_the_profile_reads_it_achiral(seed):
    """Ground truth: helix and strand (7 : 3). An engine in the strand state only, and its mirror image: both
    profiles read nearly achiral (strand sines are small), so the profile could not tell them apart; frame by frame,
    each strand frame against the ground truth's nearest strand, the honest engine reads about +0.7 and passes and
    its mirror about -0.7 and fails."""
    groundtruth = chain_ensemble(10, 600, seed, helix_share=0.7)
    strand = chain_ensemble(10, 300, seed + 100, helix_share=0.0)
    w_gt, w = np.full(600, 1 / 600), np.full(300, 1 / 300)
    reference, _ = handedness_profile(groundtruth, w_gt)
    for model, passed in ((strand, True), (strand * MIRROR, False)):
        profile = handedness_profile(model, w)[0] @ reference / (reference @ reference)
        assert abs(profile) < ACHIRAL_HANDEDNESS  # the profile alone cannot tell this mirror image
        check = engine_sanity({"ca": groundtruth}, {"ca": model}).checks["chirality"]
        assert check.passed is passed and abs(check.value) > 0.5, check


def test_frame_by_frame_a_sample_reads_plus_one_and_its_mirror_minus_one_whatever_the_row_order():
    groundtruth = chain_ensemble(12, 200, 1)
    w = np.full(200, 1 / 200)
    order = np.random.default_rng(0).permutation(200)
    assert matched_handedness(groundtruth, w, groundtruth[order], w) == pytest.approx(1.0)
    assert matched_handedness(groundtruth, w, groundtruth * MIRROR, w) == pytest.approx(-1.0)


@given(matched=st.floats(-2.0, 2.0), profile=st.floats(-3.0, 3.0))
def test_a_mirror_like_profile_alone_never_fails_a_model(matched, profile):
    """Failed only frame by frame (like compared with like); where that matches too little, the profile passes a
    model or leaves it not judged, and a mirror image turns a frame-by-frame verdict over."""
    passed, why = hand_verdict(matched, profile)
    assert (passed is False) == (matched <= -ACHIRAL_HANDEDNESS)
    if abs(matched) >= ACHIRAL_HANDEDNESS:
        assert passed is (matched > MAX_MIRROR_HANDEDNESS)
        assert hand_verdict(-matched, -profile)[0] is (not passed)
    else:
        assert passed is (True if profile > MAX_MIRROR_HANDEDNESS else None)
        assert (passed is None) == ("not judged" in why)
