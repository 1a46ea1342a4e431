"""The canonical order of a frame set: independent of row order, duplicates merged, an empty set kept empty."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.io.canonical import MULTIPLICITY, canonical_frames
from westbench.io.frames import Frames


def frames(n: int, seed: int) -> Frames:
    rng = np.random.default_rng(seed)
    out = Frames(
        ca=rng.normal(size=(n, 3, 3)),
        weight=rng.random(n),
        traj=rng.integers(0, 3, n),
        time_ps=rng.integers(0, 4, n).astype(float),
        iteration=np.zeros(n, dtype=int),
    )
    out.attrs = {}
    return out


@settings(max_examples=50, deadline=None)
@given(n=st.integers(1, 30), seed=st.integers(0, 10_000), duplicated=st.booleans())
def test_the_order_depends_on_the_set_of_rows_only_and_copies_become_one_frame(n, seed, duplicated):
    original = frames(n, seed)
    rows = np.random.default_rng(seed + 1).permutation(np.concatenate([np.arange(n)] * (2 if duplicated else 1)))
    shuffled = Frames({key: value[rows] for key, value in original.items()})
    shuffled.attrs = {}
    a, b = canonical_frames(original), canonical_frames(shuffled)
    assert np.array_equal(a["ca"], b["ca"]) and np.array_equal(a["traj"], b["traj"])
    assert np.allclose(b["weight"], a["weight"] * (2 if duplicated else 1))
    assert np.array_equal(b[MULTIPLICITY], a[MULTIPLICITY] * (2 if duplicated else 1))


def test_an_empty_frame_set_stays_empty():
    empty = canonical_frames(Frames({key: value[:0] for key, value in frames(5, 0).items()}))
    assert len(empty["ca"]) == 0 and len(empty[MULTIPLICITY]) == 0
