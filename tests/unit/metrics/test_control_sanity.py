"""westbench.metrics.control_sanity: the controls' sanity verdicts over several splits of the ground truth's units."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from westbench.metrics.control_results import sanity_answer
from westbench.metrics.control_sanity import SANITY_SPLITS, sanity_over_splits, split_rotations
from westbench.metrics.control_specs import ControlSpec
from westbench.metrics.controls import split_units

from .controls_data import helix_groundtruth


@given(n_units=st.integers(1, 40), per_unit=st.integers(1, 3), seed=st.integers(0, 2**31))
def test_the_first_split_is_the_controls_split_and_every_split_halves_the_units(n_units, per_unit, seed):
    units = np.repeat(np.arange(n_units), per_unit)
    masks = split_rotations(units, seed)
    reference, _, _ = split_units({"traj": units}, seed)
    assert len(masks) == min(SANITY_SPLITS, n_units) and np.array_equal(masks[0], reference)
    for mask in masks:
        assert len(np.unique(units[mask])) == (n_units + 1) // 2  # whole units, the larger half
        assert all(mask[units == u].all() or not mask[units == u].any() for u in range(n_units))
    if n_units <= SANITY_SPLITS:  # a small ground truth: every unit is in some split's source half
        assert set(np.concatenate([units[~mask] for mask in masks]).tolist()) == set(range(n_units)) - (
            set() if n_units > 1 else {0}
        )
    assert len({mask.tobytes() for mask in masks}) == len(masks)


def test_a_failure_caught_in_some_splits_only_is_not_promised():
    """A control that the sanity checks catch only when one given run is in its source (coordinates x10 then, the
    source as it is otherwise) is caught in 1 of 3 splits of a 3-run ground truth: the run's answer says so, and
    neither yes nor no."""
    frames, _ = helix_groundtruth(runs=3, per_run=40, seed=2)
    units = np.asarray(frames["traj"])

    def make(source, context):
        scaled = {key: np.asarray(value) for key, value in source.items()}
        if 0 in set(np.asarray(source["traj"]).tolist()):
            scaled["ca"] = scaled["ca"] * 10.0
        return scaled, "x10 when run 0 is in the source"

    spec = ControlSpec("scale_some", "scale", "failure", "units, sometimes", "test", ("bonds",), make)
    records = [{"made": "x10", "sanity_failed": ["units"] if 0 not in units[split_units(frames, 5)[0]] else []}]
    sanity_over_splits([spec], records, frames, units, context=None, seed=5)
    assert records[0]["sanity_splits"] == [1, 3]
    assert sanity_answer(records[0]) == "in 1 of 3 splits"
    assert sanity_answer({"made": "x", "sanity_splits": [3, 3]}) == "yes"
    assert sanity_answer({"made": "x", "sanity_splits": [0, 3]}) == "no"
