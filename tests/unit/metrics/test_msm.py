"""MSM reweighting and macrostates on chains with known answers."""

import numpy as np
import pytest

from westbench.metrics.metastable import macrostates
from westbench.metrics.msm import (
    grid_msm,
    grid_msm_weights,
    grid_states,
    msm_grid,
    stationary_frame_weights,
    stationary_weights,
)

TRANSITIONS = np.array([[0.90, 0.08, 0.02], [0.10, 0.80, 0.10], [0.05, 0.15, 0.80]])


def stationary(matrix):
    values, vectors = np.linalg.eig(matrix.T)
    pi = np.real(vectors[:, np.argmin(np.abs(values - 1))])
    return pi / pi.sum()


def sample_chain(n_steps, start, rng):
    states = [start]
    for _ in range(n_steps - 1):
        states.append(rng.choice(3, p=TRANSITIONS[states[-1]]))
    return np.array(states)


def test_stationary_weights_recover_the_chain_from_biased_starts():
    """Many short pieces all started in state 0 over-count it; MSM weights remove that bias."""
    rng = np.random.default_rng(5)
    pieces = [sample_chain(20, 0, rng) for _ in range(600)]
    states, traj = np.concatenate(pieces), np.repeat(np.arange(600), 20)
    raw = np.bincount(states, minlength=3) / len(states)
    weights = stationary_frame_weights(states, traj, lag=1)
    reweighted = np.array([weights[states == s].sum() for s in range(3)])
    truth = stationary(TRANSITIONS)
    assert np.abs(reweighted - truth).max() < 0.03
    assert np.abs(raw - truth).max() > 0.05  # the bias the reweighting removed
    assert weights.sum() == pytest.approx(1.0)


def test_grid_msm_on_points_and_pieces_do_not_connect():
    rng = np.random.default_rng(6)
    centres = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    pieces = [sample_chain(30, rng.integers(3), rng) for _ in range(300)]
    states = np.concatenate(pieces)
    points = centres[states] + 0.01 * rng.normal(size=(len(states), 2))
    traj = np.repeat(np.arange(300), 30)
    grid = msm_grid(points, bins=2)
    weights = grid_msm_weights(points, traj, grid, lag=1)
    cells = grid_states(points, grid)
    assert len(np.unique(cells)) == 3
    per_state = np.array([weights[states == s].sum() for s in range(3)])
    assert np.abs(per_state - stationary(TRANSITIONS)).max() < 0.03


def test_macrostates_are_seeded_and_separate_metastable_sets():
    rng = np.random.default_rng(7)
    pieces = [sample_chain(50, rng.integers(3), rng) for _ in range(100)]
    states = np.concatenate(pieces)
    centres = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])
    tics = np.column_stack(
        [centres[states] + 0.3 * rng.normal(size=(len(states), 2)), rng.normal(size=(len(states), 2))]
    )
    traj = np.repeat(np.arange(100), 50)
    labels = macrostates(tics, traj, n_clusters=12, n_macrostates=3, dim=2, seed=3)
    assert np.array_equal(labels, macrostates(tics, traj, n_clusters=12, n_macrostates=3, dim=2, seed=3))
    # Each true state is (almost) one macrostate.
    for s in range(3):
        counts = np.bincount(labels[states == s][labels[states == s] >= 0])
        assert counts.max() / counts.sum() > 0.9


def test_vectorized_sliding_counts_equal_deeptimes_estimator():
    from deeptime.markov import TransitionCountEstimator

    from westbench.metrics.msm import sliding_counts, split_by_traj

    rng = np.random.default_rng(4)
    traj = rng.permutation(np.repeat(np.arange(30), 12))  # pieces interleaved: order must come from traj
    order = np.argsort(traj, kind="stable")
    states = np.empty_like(traj)
    states[order] = rng.integers(0, 7, size=len(traj))
    for lag in (1, 3):
        expected = TransitionCountEstimator(lag, "sliding", n_states=7).fit(split_by_traj(states, traj)).fetch_model()
        assert np.array_equal(sliding_counts(states, traj, lag).count_matrix.toarray(), expected.count_matrix)


def test_model_frames_are_assigned_to_ground_truth_macrostates():
    from westbench.metrics.metastable import MacrostateEstimator

    rng = np.random.default_rng(5)
    centre = np.repeat(np.tile([0.0, 4.0, 8.0], 10), 50)  # one trajectory visiting three basins in turn
    tics = centre[:, None] + rng.normal(0, 0.2, (len(centre), 3))
    model = MacrostateEstimator(n_clusters=15, n_macrostates=3, dim=3, seed=2).fit(tics, np.zeros(len(tics)))
    labels = model.assign(tics)
    assert model.n_macrostates == 3
    assert [len(set(labels[centre == c])) for c in (0.0, 4.0, 8.0)] == [1, 1, 1]
    assert len({labels[centre == c][0] for c in (0.0, 4.0, 8.0)}) == 3
    # Frames of another data set land in the macrostate of the basin they are in.
    probe = np.array([[0.1, 0.0, -0.1], [8.1, 7.9, 8.0]])
    assert model.assign(probe).tolist() == [labels[centre == 0.0][0], labels[centre == 8.0][0]]


def test_too_little_data_for_an_msm_gives_unassigned_frames_not_a_crash():
    from westbench.metrics.metastable import MacrostateEstimator

    tics = np.random.default_rng(0).normal(size=(12, 2))
    model = MacrostateEstimator(n_clusters=100, dim=2).fit(tics, np.arange(12))  # every frame its own piece
    assert model.n_macrostates == 0 and set(model.assign(tics).tolist()) == {-1}


def test_a_degenerate_msm_that_fails_pcca_gives_unassigned_frames_with_the_reason():
    """Five frames of one run hop A, B, A, C, D over two clusters: the MSM's second eigenvector is constant and
    deeptime's PCCA+ asserts (hypothesis found it through the metric suite); the frames get -1 with the reason."""
    from westbench.metrics.metastable import MacrostateEstimator

    tics = np.array([[-0.154, 1.768], [-0.443, -1.487], [-0.107, 1.502], [0.757, -0.375], [-1.096, 0.700]])
    model = MacrostateEstimator(n_clusters=100, n_macrostates=5, dim=2, seed=0).fit(tics, np.zeros(5, int))
    assert model.n_macrostates == 0 and set(model.assign(tics).tolist()) == {-1}
    assert model.why.startswith("no MSM over 2 clusters of 5 frames")


def test_frames_far_outside_the_ground_truth_leave_the_grid_and_the_other_weights_as_they_were():
    """An exploded walker lands in an overflow cell of the ground truth's grid: the grid over the real frames does
    not stretch, and a piece that never comes back is outside the connected set (its share reported)."""
    rng = np.random.default_rng(8)
    centres = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    states = np.concatenate([sample_chain(30, rng.integers(3), rng) for _ in range(200)])
    points = centres[states] + 0.05 * rng.normal(size=(len(states), 2))
    traj = np.repeat(np.arange(200), 30)
    grid = msm_grid(points, bins=4)
    before = grid_msm(points, traj, grid, lag=1)
    far = np.full((10, 2), 50.0)
    after = grid_msm(np.vstack([points, far]), np.concatenate([traj, np.full(10, 999)]), grid, lag=1)
    assert np.allclose(after.weights[: len(points)], before.weights, rtol=1e-12, atol=0)
    assert after.weights[len(points) :].sum() == 0 and after.outside_share == pytest.approx(10 / (len(points) + 10))
    assert before.outside_share == 0.0


def test_a_far_frame_takes_no_weight_from_a_connected_state_outside_the_grid():
    """States outside the ground truth's grid are bounded (one span of the grid wide): a single frame at TIC 50
    shares no state with connected frames just outside the range (the grid's overflow cell reaches to infinity,
    and there it took a share of that state's weight: the contract's far-mass property, issue 51)."""
    rng = np.random.default_rng(10)
    centres = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    states = np.concatenate([sample_chain(30, rng.integers(3), rng) for _ in range(100)])
    groundtruth = centres[states] + 0.05 * rng.normal(size=(len(states), 2))
    grid = msm_grid(groundtruth, bins=4)
    # the model also visits (1.4, 1.4): outside the grid in both TICs, within one span of it, connected
    model = np.vstack([groundtruth, np.tile([[0.0, 0.0], [1.4, 1.4]], (20, 1))])
    traj = np.concatenate([np.repeat(np.arange(100), 30), np.full(40, 100)])
    before = grid_msm(model, traj, grid, lag=1)
    assert before.weights[-1] > 0 and before.outside_share == 0.0
    for far in ([50.0, 50.0], [1.4, 50.0], [np.nan, np.nan], [1e300, -np.inf]):
        after = grid_msm(np.vstack([model, [far]]), np.append(traj, 101), grid, lag=1)
        assert np.allclose(after.weights[:-1], before.weights, rtol=1e-12, atol=0), far
        assert after.weights[-1] == 0 and after.outside_share == pytest.approx(1 / (len(model) + 1))
    near = grid_states(np.array([[1.4, 1.4], [1.9, 1.9], [50.0, 50.0]]), grid)
    assert near[0] == near[1] != near[2]  # within one span: the grid's overflow cell, as before


def test_transitions_are_counted_in_time_order_whatever_the_row_order():
    rng = np.random.default_rng(9)
    states = np.concatenate([sample_chain(20, rng.integers(3), rng) for _ in range(50)])
    traj, time = np.repeat(np.arange(50), 20), np.tile(np.arange(20.0), 50)
    order = rng.permutation(len(states))
    expected = stationary_weights(states, traj, lag=1, time=time).weights
    shuffled = stationary_weights(states[order], traj[order], lag=1, time=time[order]).weights
    assert np.allclose(shuffled, expected[order], rtol=1e-10, atol=1e-15)
