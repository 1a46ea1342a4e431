"""The ball crossing (westbench.metrics.ball_crossing): every shortcut it takes gives the ball a scan of the whole
merged candidate list gives (hypothesis: heavy-tailed and zero weights, ties, empty units, own units left out)."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from westbench.metrics import ball_crossing as module
from westbench.metrics.ball_crossing import ROUNDING
from westbench.metrics.neighbour_lists import Side

seeds = st.integers(min_value=0, max_value=2**31 - 1)


def full_scan(cands, multiplicities, target, eps):
    """The ball of every (replicate, query point) read off the whole merged list, one pair at a time: what
    :func:`crossing` must give whichever shortcut it takes (a short first read, lists that cannot reach the
    target, replicates holding few units)."""

    batch, (q, _) = len(multiplicities), cands.distance.shape
    radius, mass, ok = np.full((batch, q), np.inf), np.zeros((batch, q)), np.zeros((batch, q), dtype=bool)
    unit, weight = cands.units[cands.location], cands.weights[cands.location]
    for b in range(batch):
        for i in range(q):
            w = multiplicities[b, unit[i]] * weight[i]
            cumulative = np.cumsum(w)
            reached = np.flatnonzero(cumulative >= target[b] * (1 - ROUNDING))
            if len(reached):
                radius[b, i], mass[b, i], ok[b, i] = cands.distance[i, reached[0]], cumulative[reached[0]], True
            else:
                held = np.flatnonzero(w > 0)
                radius[b, i] = cands.distance[i, held[-1]] if len(held) else np.inf
                mass[b, i] = cumulative[-1] if len(cumulative) else 0.0
    atom = multiplicities @ cands.atom.T
    mass = np.where(radius <= eps, atom, mass)
    return np.maximum(radius, eps), mass, ~ok


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seeds,
    st.integers(1, 2),
    st.integers(1, 12),
    st.integers(1, 6),
    st.sampled_from(["dense", "few", "mixed"]),
    st.sampled_from([1, 10**9]),
)
def test_the_crossing_s_shortcuts_give_the_whole_list_s_ball(seed, dim, n_units, count, present, few_units):
    """Memory and time (issue 51): the lists hold 16 bytes a candidate (was 32), a pair the lists cannot fill is settled
    from each unit's listed weight, a replicate holding few units reads only theirs. None of it may change a ball:
    every (replicate, query point) equals a scan of the whole merged list, heavy-tailed weights, ties, empty units
    and own units left out included."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(n_units, 8 * n_units + 1))
    points = np.round(rng.normal(size=(n, dim)), 1)  # rounded: ties and atoms
    weights = np.exp(rng.normal(0, 2, n)) * (rng.random(n) > 0.1)  # heavy-tailed, some weightless
    units = rng.integers(0, n_units, n)
    side = Side.build(points, weights, units, n_units)
    query = np.round(rng.normal(size=(9, dim)), 1)
    cands = side.candidates(query, count, 1e-9, skip=rng.integers(0, n_units, len(query)))
    batch = 7
    if present == "dense":
        multiplicities = rng.poisson(1.0, (batch, n_units)).astype(float)
    else:
        multiplicities = np.zeros((batch, n_units))
        multiplicities[np.arange(batch), rng.integers(0, n_units, batch)] = 1.0
        if present == "mixed":
            multiplicities[: batch // 2] = rng.poisson(1.0, (batch // 2, n_units))
    target = side.ball_mass(multiplicities, int(rng.integers(1, 6)))
    old = module.WIDTHS, module.FEW_UNITS
    module.WIDTHS, module.FEW_UNITS = (1, 2), few_units  # every path taken at these small sizes
    try:
        radius, mass, short, _ = module.crossing(cands, multiplicities, target, 1e-9)
    finally:
        module.WIDTHS, module.FEW_UNITS = old
    expected = full_scan(cands, multiplicities, target, 1e-9)
    np.testing.assert_array_equal(radius, expected[0])
    np.testing.assert_allclose(mass, expected[1], rtol=1e-12, atol=0)
    np.testing.assert_array_equal(short, expected[2])
