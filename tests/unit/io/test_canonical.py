"""The canonical form of a frame set: it depends on the information in the rows only (their set of distinct
conformations, each one's weight up to a common factor, piece and time), never on row order, copies of a
frame written anywhere, or rows of weight 0."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.io.canonical import CONFORMATION, MULTIPLICITY, canonical_frames, conformations
from westbench.io.frames import Frames
from westbench.metrics import adversarial


def frames(n: int, seed: int, pieces: int = 3, lattice: bool = False) -> Frames:
    """``n`` frames over ``pieces`` pieces; with ``lattice`` the coordinates sit on a coarse grid (equal values)."""
    rng = np.random.default_rng(seed)
    ca = rng.normal(size=(n, 3, 3))
    if lattice:
        ca = np.round(ca)
    traj = np.sort(rng.integers(0, pieces, n))
    out = Frames(
        ca=ca,
        tics=ca[:, :, 0].copy(),
        weight=rng.random(n) + 0.1,
        traj=traj,
        time_ps=np.concatenate([np.arange(c, dtype=float) for c in np.bincount(traj, minlength=pieces)]),
        iteration=np.zeros(n, dtype=int),
    )
    out.attrs = {"source": "test"}
    return out


def same_form(a: Frames, b: Frames) -> None:
    """The same conformations in the same order, the same pieces and times, weights equal up to one factor."""
    assert np.array_equal(a["ca"], b["ca"]) and np.array_equal(a["tics"], b["tics"])
    assert np.array_equal(a["time_ps"], b["time_ps"])
    # Pieces are the same up to their labels.
    assert np.array_equal(np.unique(a["traj"], return_inverse=True)[1], np.unique(b["traj"], return_inverse=True)[1])
    np.testing.assert_allclose(a["weight"] / a["weight"].sum(), b["weight"] / b["weight"].sum(), rtol=1e-12)


TRANSFORMS = {
    "row order": lambda f, s: adversarial.permuted(f, s),
    "every row twice": lambda f, s: adversarial.duplicated(f),
    "some rows twice": lambda f, s: adversarial.written_twice(f, 0.4, s),
    "copies in new pieces": lambda f, s: adversarial.copied_to_new_pieces(f),
    "copies, a piece each": lambda f, s: adversarial.copied_to_new_pieces(f, per_frame=True),
    "a piece duplicated": lambda f, s: adversarial.piece_duplicated(f, 2, s),
    "file duplicated": lambda f, s: adversarial.file_duplicated(f),
    "weights x 1000": lambda f, s: adversarial.scaled_weights(f, 1000.0),
    "zero-weight frames": lambda f, s: adversarial.with_zero_weight_frames(f, 0.5, s),
}


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 40),
    seed=st.integers(0, 10_000),
    pieces=st.integers(1, 5),
    lattice=st.booleans(),
    names=st.lists(st.sampled_from(sorted(TRANSFORMS)), min_size=1, max_size=3),
)
def test_the_canonical_form_holds_only_the_information_in_the_rows(n, seed, pieces, lattice, names):
    """Any chain of transformations that carry no information (row order, copies of frames written anywhere,
    weights scaled, weightless frames added) leaves the canonical form as it was."""
    original = frames(n, seed, pieces, lattice)
    changed = original
    for step, name in enumerate(names):
        changed = TRANSFORMS[name](changed, seed + step)
    before, after = canonical_frames(original), canonical_frames(changed)
    same_form(before, after)
    assert after.attrs == original.attrs
    assert np.all(after[MULTIPLICITY] >= before[MULTIPLICITY])


def test_copies_of_a_record_are_kept_once_and_other_records_of_a_conformation_stay():
    """A row written twice keeps its weight (not double); copies written with the weight split carry the share each;
    the same conformation saved at another time is another observation: it stays, under the same conformation."""
    original = frames(6, 1, pieces=2)
    twice = Frames({k: np.concatenate([v, v[:1]]) for k, v in original.items()})
    twice.attrs = {}
    merged = canonical_frames(twice)
    assert len(merged["ca"]) == 6 and merged[MULTIPLICITY].tolist() == [2, 1, 1, 1, 1, 1]
    np.testing.assert_allclose(merged["weight"], canonical_frames(original)["weight"], rtol=1e-15)
    halves = canonical_frames(adversarial.copied_to_new_pieces(original))
    np.testing.assert_allclose(halves["weight"], canonical_frames(original)["weight"] / 2, rtol=1e-15)
    assert halves[MULTIPLICITY].tolist() == [2] * 6
    later = Frames({k: np.concatenate([v, v[:1]]) for k, v in original.items()})
    later["time_ps"][-1] = 99.0  # the first frame's conformation, saved again later
    later.attrs = {}
    kept = canonical_frames(later)
    assert len(kept["ca"]) == 7 and len(np.unique(kept[CONFORMATION])) == 6
    assert kept[CONFORMATION][kept["time_ps"] == 99.0][0] == kept[CONFORMATION][0]


def test_the_copy_that_stays_is_the_one_in_the_longest_piece():
    """A frame copied into a one-frame piece listed first still belongs to its original run."""
    original = frames(8, 2, pieces=2)
    copy = adversarial._rows(original, np.array([0]))
    copy["traj"] = np.array([-1])  # a piece label before every other
    joined = adversarial._joined(copy, original)
    merged = canonical_frames(joined)
    assert sorted(set(merged["traj"].tolist())) == sorted(set(original["traj"].tolist()))


def test_weightless_rows_are_no_frames_unless_every_row_is_weightless():
    original = frames(5, 3)
    weightless = Frames({**original, "weight": np.zeros(5)})
    weightless.attrs = {}
    assert len(canonical_frames(weightless)["ca"]) == 5  # says nothing about weights: kept for the caller to judge
    partly = Frames({**original, "weight": np.array([0.0, 1.0, 0.0, 2.0, 3.0])})
    partly.attrs = {}
    assert canonical_frames(partly)["weight"].tolist() == [1.0, 2.0, 3.0]


def test_conformations_tell_zero_from_minus_zero_as_one_value_and_keep_near_copies_apart():
    rows = np.array([[0.0, 1.0], [-0.0, 1.0], [np.nextafter(0.0, 1.0), 1.0]])
    assert conformations([rows]).tolist() == [0, 0, 1]


@pytest.mark.parametrize("n", [0, 1])
def test_an_empty_or_single_frame_set_is_kept(n):
    form = canonical_frames(Frames({key: value[:n] for key, value in frames(5, 0).items()}))
    assert len(form["ca"]) == n and form[MULTIPLICITY].tolist() == [1] * n
