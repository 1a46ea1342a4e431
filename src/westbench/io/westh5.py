"""The finished iterations of a WESTPA ``west.h5``: the one loop over its ``iterations/iter_*`` groups.

The WE export, the WE coverage stop and the import of an external WESTPA run all read
``west.h5`` through :func:`iterations`; sampling and analysis code may both use it.

Finished iterations are ``1 .. west_current_iteration - 1``: WESTPA advances
``west_current_iteration`` only after an iteration's segments and weights are written.
WESTPA's own reader, :class:`westpa.analysis.Run`, is not used here: it also counts the
current iteration once all its segments are complete (WESTPA not yet advanced), it needs
the current iteration's group to exist (files written by other tools may lack it), and the
analysis environment (``envs/analysis.yaml``), where external runs are imported, has no WESTPA.
Group names follow the file's ``west_iter_prec`` attribute (WESTPA's default, 8 digits).

Examples
--------
>>> import tempfile, h5py, numpy as np
>>> path = tempfile.mkdtemp() + "/west.h5"
>>> with h5py.File(path, "w") as handle:
...     handle.attrs["west_current_iteration"] = 3  # iterations 1 and 2 finished, 3 prepared
...     for n in (1, 2, 3):
...         index = np.zeros(n, dtype=[("weight", "f8")])
...         index["weight"] = 1.0 / n
...         _ = handle.create_dataset(f"iterations/iter_{n:08d}/seg_index", data=index)
>>> [(it.number, it.weights.tolist()) for it in iterations(path)]
[(1, [1.0]), (2, [0.5, 0.5])]
>>> finished_iterations(path), [it.number for it in iterations(path, last=1)]
(2, [1])
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import h5py
import numpy as np

from westbench.errors import WestbenchError

#: Digits of an iteration group's number when the file does not say (WESTPA's default).
DEFAULT_ITER_PREC = 8


class WestH5Error(WestbenchError):
    """A west.h5 cannot be read, or lacks what a finished iteration must hold."""


@dataclass(frozen=True)
class Iteration:
    """One finished WE iteration: its segment index (row = segment id) and progress coordinates."""

    number: int
    seg_index: np.ndarray
    #: (segments, points, ndim); ``None`` when the file holds none (written by another tool).
    pcoord: np.ndarray | None

    @property
    def weights(self) -> np.ndarray:
        """Each segment's WE weight (they sum to one over the iteration)."""
        return self.seg_index["weight"]

    def __len__(self) -> int:
        return len(self.seg_index)


def _open(west_h5: str | Path) -> h5py.File:
    try:
        handle = h5py.File(west_h5, "r")
    except (OSError, FileNotFoundError) as exc:
        raise WestH5Error(f"{west_h5} is not a readable west.h5 ({exc})") from None
    if "west_current_iteration" not in handle.attrs:
        handle.close()
        raise WestH5Error(f"{west_h5} has no west_current_iteration attribute: not a WESTPA west.h5")
    return handle


def _finished(handle: h5py.File) -> int:
    return int(handle.attrs["west_current_iteration"]) - 1


def finished_iterations(west_h5: str | Path) -> int:
    """How many iterations of ``west_h5`` are finished (``west_current_iteration - 1``)."""
    with _open(west_h5) as handle:
        return _finished(handle)


def iterations(west_h5: str | Path, last: int | None = None) -> Iterator[Iteration]:
    """Yield the finished iterations of ``west_h5`` in order, up to ``last`` when given.

    Raises
    ------
    WestH5Error
        The file cannot be read, is not a WESTPA file, or a finished iteration has no ``seg_index``.
    """
    with _open(west_h5) as handle:
        finished = _finished(handle)
        last = finished if last is None else min(int(last), finished)
        digits = int(handle.attrs.get("west_iter_prec", DEFAULT_ITER_PREC))
        for number in range(1, last + 1):
            name = f"iterations/iter_{number:0{digits}d}"
            if f"{name}/seg_index" not in handle:
                raise WestH5Error(
                    f"{west_h5}: finished iteration {number} has no {name}/seg_index "
                    "(a truncated or damaged file: rerun or restore it)"
                )
            group = handle[name]
            yield Iteration(number, group["seg_index"][()], group["pcoord"][()] if "pcoord" in group else None)
