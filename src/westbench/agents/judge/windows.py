"""How the evidence is cut into windows: each character's cost in the document, the windows over those costs.

The rule (:mod:`~westbench.agents.judge.evidence`): windows of ``width`` document characters with stride
``width - width // OVERLAP_FRACTION``, so consecutive windows overlap by ``width // OVERLAP_FRACTION``: every
character is in some window and every passage up to ``width // OVERLAP_FRACTION - 12`` whole in one.

Examples
--------
>>> window_ranges(200, 80)
((0, 80), (70, 150), (140, 200))
"""

from __future__ import annotations

import math

import numpy as np

#: Windows overlap by this fraction of their width.
OVERLAP_FRACTION = 8


def escaped_costs(text: str) -> np.ndarray:
    """The characters each character of ``text`` takes in ASCII JSON (``json.dumps(..., ensure_ascii=True)``).

    >>> escaped_costs('a"\\n\u00e9\U0001f600').tolist()
    [1, 2, 2, 6, 12]
    """
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    costs = np.ones(codes.shape, dtype=np.int64)
    costs[(codes < 0x20) | (codes >= 0x7F)] = 6
    costs[np.isin(codes, (0x08, 0x09, 0x0A, 0x0C, 0x0D, 0x22, 0x5C))] = 2
    costs[codes > 0xFFFF] = 12
    return costs


def window_ranges(costs, width: int) -> tuple[tuple[int, int], ...]:
    """The unit ranges of the windows over units of the given ``costs`` (module docstring).

    ``costs``: each unit's cost (:func:`escaped_costs`), or a number of units costing 1 each.

    >>> window_ranges(10, 100), window_ranges(0, 100), window_ranges(200, 80)
    (((0, 10),), ((0, 0),), ((0, 80), (70, 150), (140, 200)))
    >>> window_ranges(np.array([6] * 30), 80)  # 180 document characters
    ((0, 13), (12, 25), (24, 30))
    """
    if isinstance(costs, (int, np.integer)):  # unit costs: arithmetic, no arrays
        if costs <= width:
            return ((0, int(costs)),)
        stride = width - width // OVERLAP_FRACTION
        count = 1 + math.ceil((costs - width) / stride)
        return tuple((k * stride, min(k * stride + width, int(costs))) for k in range(count))
    costs = np.asarray(costs)
    cumulative = np.concatenate([[0], np.cumsum(costs)])
    total, length = int(cumulative[-1]), len(costs)
    if total <= width:
        return ((0, length),)
    stride = width - width // OVERLAP_FRACTION
    count = 1 + math.ceil((total - width) / stride)
    starts = np.searchsorted(cumulative, [k * stride for k in range(count)], side="left")
    ends = np.searchsorted(cumulative, [k * stride + width for k in range(count)], side="right") - 1
    return tuple((int(start), int(min(end, length))) for start, end in zip(starts, ends))
