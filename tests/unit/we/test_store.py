"""The segment store: a worker's restarts come back in the order asked, before and after consolidation."""

import numpy as np
import pytest

from westbench.engines.base import SegmentResult, WalkerState
from westbench.we.store import SegmentStore


def result_at(value: float) -> SegmentResult:
    return SegmentResult(np.full((2, 3, 3), value), WalkerState(np.full((5, 3), value), np.full((5, 3), -value)))


@pytest.mark.parametrize("consolidated", [False, True])
def test_restarts_of_one_iteration_come_back_in_the_order_asked(tmp_path, consolidated):
    store = SegmentStore(tmp_path)
    store.write_segments(3, [0, 1], [result_at(0.0), result_at(1.0)])  # two workers' blocks
    store.write_segments(3, [2, 3], [result_at(2.0), result_at(3.0)])
    if consolidated:
        store.consolidate(3)
    asked = [3, 0, 2, 2, 1]
    states = store.restarts(3, asked)
    assert [float(s.positions[0, 0]) for s in states] == asked
    assert [float(s.velocities[0, 0]) for s in states] == [-v for v in asked]
    assert float(store.restart(3, 2).positions[0, 0]) == 2.0


def test_a_restart_of_a_segment_no_file_holds_names_it_and_the_folder(tmp_path):
    store = SegmentStore(tmp_path)
    store.write_segments(1, [0], [result_at(0.0)])
    with pytest.raises(KeyError, match=r"segments \[5\] of iteration 1 .*iter_000001"):
        store.restarts(1, [0, 5])
