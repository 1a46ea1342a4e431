"""Engine sanity of the known-bad controls over several splits of the ground truth's units.

Whether the sanity checks (:func:`westbench.geometry.sanity.engine_sanity`) catch a known-bad engine can depend on
which conformations it samples: a hand is told by comparing dihedral sines with the ground truth's nearest
conformations, and where a control's runs sample conformations the reference's runs do not, no hand can be compared.
On the embedded demo's ground truth (3 runs) the mirror of run 0 or 1 reads -0.93 and -0.69 against the other two
(caught), that of run 2 +0.15 (not). One seeded split answers for one choice of runs, so the controls' claim
"caught by the sanity checks" is made over :data:`SANITY_SPLITS` rotations of the split instead (every unit in the
source half once when the ground truth has no more units than that): ``sanity_splits`` [caught, splits] per
control, and the run's answer *yes* only where every split caught it (:mod:`westbench.metrics.control_results`).

Examples
--------
>>> units = np.repeat(np.arange(3), 2)
>>> [np.unique(units[~reference]).tolist() for reference in split_rotations(units, seed=0)]
[[2], [0], [1]]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from westbench.errors import WestbenchError
from westbench.geometry.sanity import engine_sanity
from westbench.metrics import control_engines as engines
from westbench.seeds import derive_seed

#: Splits of the ground truth's units over which a control's sanity verdict is taken (the first is the split the
#: controls are scored on). Five: every unit of a ground truth of up to five runs is the source once; beyond that a
#: rotation of the seeded order by a fifth of it each time. A failure control costs one making and one sanity check
#: per split (no metric suite).
SANITY_SPLITS = 5


def split_rotations(units: np.ndarray, seed: int, splits: int = SANITY_SPLITS) -> list[np.ndarray]:
    """The reference rows (boolean masks) of up to ``splits`` splits of the units into a larger and a smaller
    half: the seeded order of :func:`westbench.metrics.controls.split_units` (the first split is its split), then
    that order rotated, so that each split's source half holds other units."""
    n = int(units.max()) + 1 if len(units) else 0
    order = np.random.default_rng(derive_seed(seed, "split")).permutation(n)
    count = max(1, min(splits, n))
    step = max(1, n // count)
    return [np.isin(units, np.roll(order, -k * step)[: (n + 1) // 2]) for k in range(count)]


def sanity_over_splits(
    specs: Sequence, records: Sequence[dict], frames: Mapping, units: np.ndarray, context, seed: int
) -> None:
    """Fill each made failure control's ``sanity_splits`` ([splits whose control the sanity checks fail, splits]):
    the first split's from its record (``sanity_failed``), every other split's by making the control again from
    that split's source half and checking it against that split's reference. A control that cannot be made in a
    split counts as not caught there."""
    masks = split_rotations(units, seed)
    halves = [(engines.kept(frames, rows), engines.kept(frames, ~rows)) for rows in masks[1:]]
    for spec, record in zip(specs, records):
        if spec.kind != "failure" or not record.get("made"):
            continue
        caught = int(bool(record.get("sanity_failed")))
        for reference, source in halves:
            try:
                made, _ = spec.make(source, context)
            except WestbenchError:
                continue
            caught += int(bool(engine_sanity(reference, made).failed))
        record["sanity_splits"] = [caught, len(masks)]
