"""Candidate lists (westbench.metrics.neighbour_lists): each unit's nearest locations to every query point, merged
by distance, equal a brute-force search whatever the shape (1-D, circular, 2-D; ties, weightless points, empty units,
own units skipped), with each unit's listed weight, farthest weighted location and atom."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from westbench.metrics.neighbour_lists import Layout, Side


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**31 - 1), st.sampled_from(["line", "circle", "plane"]), st.integers(1, 5), st.integers(1, 6))
def test_each_units_list_is_its_nearest_locations_by_brute_force(seed, kind, n_units, count):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 10 * n_units + 1))
    period = 1.0 if kind == "circle" else None
    points = np.round(rng.random((n, 2)) if kind == "plane" else rng.random(n), 1)  # rounded: ties and atoms
    if period:  # circular values come wrapped into [0, period) (westbench.metrics.kl.prepared)
        points = np.mod(points, period)
    weights = np.exp(rng.normal(0, 1, n)) * (rng.random(n) > 0.2)
    units = rng.integers(0, n_units, n)
    side = Side.build(points, weights, units, n_units, period)
    query = np.round(rng.random((5, 2)) if kind == "plane" else rng.random((5, 1)), 1)
    query = np.mod(query, period) if period else query
    skip = rng.integers(0, n_units, len(query))
    eps = 1e-9
    cands = side.candidates(query, count, eps, skip=skip)
    values = side.values
    for i, q in enumerate(query):
        d = np.abs(values - q)
        d = np.minimum(d, period - d) if period else d
        d = np.linalg.norm(d, axis=1)
        for u in range(n_units):
            mine = np.flatnonzero(side.units == u)
            listed = np.sort(cands.distance[i][cands.unit()[i] == u])
            listed = listed[np.isfinite(listed)]
            if u == skip[i]:
                assert len(listed) == 0 and cands.atom[i, u] == 0
                continue
            np.testing.assert_allclose(listed, np.sort(d[mine])[:count], rtol=0, atol=1e-12)
            assert np.isclose(cands.atom[i, u], np.sum(side.weights[mine][d[mine] <= eps]), rtol=1e-12, atol=0)
            in_list = cands.location[i][(cands.unit()[i] == u) & np.isfinite(cands.distance[i])]
            assert np.isclose(cands.listed[i, u], side.weights[in_list].sum(), rtol=1e-12, atol=0)


def test_a_layout_weighs_its_points_per_frame_and_leaves_weightless_frames_out():
    """A frame's bonds come ``per_frame`` to a frame: each takes the frame's weight; a unit's total counts them all."""
    layout = Layout.of(np.array([3.0, 1.0, 2.0, 0.0]), np.array([0, 0, 1, 1]), 2, per_frame=2)
    side = layout.side(np.array([0.5, 0.0]))
    assert side.values[:, 0].tolist() == [1.0, 3.0] and side.weights.tolist() == [0.5, 0.5]
    assert side.unit_totals.tolist() == [1.0, 0.0]
    assert layout.side(np.array([1.0, 1.0])).reweighted(np.array([0.0, 1.0, 1.0, 0.0])).unit_weights.tolist() == [
        1.0,
        1.0,
    ]
