"""The one reader of west.h5 iterations: finished iterations only, WESTPA's group names, clear errors."""

import h5py
import numpy as np
import pytest

from westbench.io.westh5 import WestH5Error, finished_iterations, iterations

INDEX = np.dtype([("weight", "f8"), ("walltime", "f8"), ("cputime", "f8")])


def write_west_h5(path, segments, current, digits=8, pcoord=True):
    """A west.h5 laid out as WESTPA writes it: one group per iteration up to the current (prepared) one."""
    with h5py.File(path, "w") as handle:
        handle.attrs["west_current_iteration"] = current
        if digits != 8:
            handle.attrs["west_iter_prec"] = digits
        for n_iter, count in enumerate(segments, start=1):
            group = handle.create_group(f"iterations/iter_{n_iter:0{digits}d}")
            group["seg_index"] = np.array([(1.0 / count, n_iter, 2 * n_iter)] * count, dtype=INDEX)
            if pcoord:
                group["pcoord"] = np.full((count, 3, 2), float(n_iter), dtype=np.float32)
    return path


def test_only_finished_iterations_in_order(tmp_path):
    path = write_west_h5(tmp_path / "west.h5", [2, 3, 4], current=3)  # iteration 3 prepared, not run
    found = list(iterations(path))
    assert [it.number for it in found] == [1, 2] == list(range(1, finished_iterations(path) + 1))
    assert [len(it) for it in found] == [2, 3] and found[1].weights.sum() == pytest.approx(1.0)
    assert found[1].seg_index["walltime"].tolist() == [2.0] * 3 and found[1].pcoord.shape == (3, 3, 2)
    assert [it.number for it in iterations(path, last=1)] == [1]
    assert [it.number for it in iterations(path, last=10)] == [1, 2]


def test_the_files_iteration_precision_and_a_file_without_pcoords(tmp_path):
    path = write_west_h5(tmp_path / "west.h5", [1, 2], current=3, digits=6, pcoord=False)
    assert [(it.number, it.pcoord) for it in iterations(path)] == [(1, None), (2, None)]


def test_errors_name_the_file(tmp_path):
    with pytest.raises(WestH5Error, match=r"missing\.h5 is not a readable west\.h5"):
        list(iterations(tmp_path / "missing.h5"))
    with h5py.File(tmp_path / "other.h5", "w") as handle:
        handle["x"] = 1
    with pytest.raises(WestH5Error, match=r"other\.h5 has no west_current_iteration"):
        finished_iterations(tmp_path / "other.h5")
    path = write_west_h5(tmp_path / "west.h5", [2], current=3)  # says two finished, holds one
    with pytest.raises(WestH5Error, match=r"west\.h5: finished iteration 2 has no iterations/iter_00000002/seg_index"):
        list(iterations(path))
