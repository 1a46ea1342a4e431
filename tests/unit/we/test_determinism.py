"""WESTPA's segments hashed by (iteration, weight): a set of segments iterates in an order fixed by what was
inserted, not by memory addresses, so two identical runs split and merge alike."""

from hypothesis import given
from hypothesis import strategies as st

from westbench.we.determinism import make_segment_order_deterministic

KEYS = st.lists(st.tuples(st.integers(1, 5), st.sampled_from([0.5, 0.25, 0.125, 1 / 3])), min_size=1, max_size=30)


def order(keys, padding):
    """The seg ids of a set of fresh segments, made with ``padding`` objects allocated between them."""
    from westpa.core.segment import Segment

    kept, segments = [], set()
    for seg_id, (n_iter, weight) in enumerate(keys):
        kept.append([object() for _ in range(padding)])  # other allocations move the segments in memory
        segments.add(Segment(n_iter=n_iter, seg_id=seg_id, weight=weight))
    return [segment.seg_id for segment in segments]


@given(KEYS, st.integers(1, 40))
def test_a_set_of_segments_iterates_in_the_same_order_wherever_they_live(keys, padding):
    make_segment_order_deterministic()
    assert order(keys, 0) == order(keys, padding)


def test_the_patch_is_made_once_and_keys_equal_segments_alike():
    from westpa.core.segment import Segment

    make_segment_order_deterministic()
    init, hash_ = Segment.__init__, Segment.__hash__
    make_segment_order_deterministic()
    assert (Segment.__init__, Segment.__hash__) == (init, hash_) and Segment._westbench_deterministic
    twins = Segment(n_iter=3, seg_id=0, weight=0.5), Segment(n_iter=3, seg_id=1, weight=0.5)
    assert hash(twins[0]) == hash(twins[1]) == hash((3, 0.5))
    assert twins[0] != twins[1] and len(set(twins)) == 2  # equal hashes, still two walkers
    assert hash(Segment()) == hash((0, 0.0))  # a segment made before its iteration and weight are known
