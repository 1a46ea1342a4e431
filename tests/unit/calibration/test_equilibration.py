"""The study's ground-truth equilibration check: two families of runs that agree, and two that do not."""

import numpy as np

from westbench.calibration.equilibration import ALPHA, equilibration_check, run_mean_tests

SETTINGS = {"bootstrap": 100, "seed": 2, "bins": 30, "w1_2d_bins": 10, "macrostate_clusters": 5, "macrostates": 2}


def runs(shift: float, seed: int, n_runs: int = 24, per_run: int = 40):
    """Runs alternating native, hot; the hot ones' TICs (and chains) shifted by ``shift``: runs that have not
    forgotten where they started."""
    rng = np.random.default_rng(seed)
    n = n_runs * per_run
    traj = np.repeat(np.arange(n_runs), per_run)
    hot = traj % 2 == 1
    tics = rng.normal(size=(n, 4))
    tics[hot, :2] += shift
    ca = np.cumsum(rng.normal(0, 0.2, (n, 6, 3)), axis=1) * (1 + 0.5 * shift * hot)[:, None, None]
    frames = {
        "ca": ca,
        "tics": tics,
        "weight": np.full(n, 1 / n),
        "traj": traj,
        "time_ps": np.tile(np.arange(per_run, dtype=float), n_runs),
        "iteration": np.zeros(n, int),
    }
    return frames, ["native", "hot"] * (n_runs // 2)


def test_runs_that_forgot_their_starts_are_equilibrated():
    frames, starts = runs(0.0, 1)
    check = equilibration_check(frames, starts, SETTINGS)
    assert check["equilibrated"] is True and check["determined"] > 0 and check["runs"] == {"hot": 12, "native": 12}


def test_runs_still_near_their_starts_are_not_and_the_cells_are_named():
    frames, starts = runs(1.5, 3)
    check = equilibration_check(frames, starts, SETTINGS)
    assert check["equilibrated"] is False and "w1 tic0" in check["separated"]


def test_one_kind_of_start_cannot_be_checked_and_says_why():
    frames, _ = runs(0.0, 4)
    assert equilibration_check(frames, ["native"] * 24, SETTINGS)["equilibrated"] is None


def with_energy(frames, offset: float, seed: int):
    """The frames with an energy: a per-run level (sd 1) plus frame noise (sd 3); hot runs ``offset`` higher."""
    rng = np.random.default_rng(seed)
    traj = frames["traj"]
    level = rng.normal(size=traj.max() + 1) + offset * (np.arange(traj.max() + 1) % 2 == 1)
    return {**frames, "energy": level[traj] + rng.normal(0, 3.0, len(traj))}


def test_an_energy_excess_of_the_hot_runs_is_drift_even_where_every_suite_cell_is_within_noise():
    """What the study's ground truth did: the hot family's mean energy still high, the distributions within noise."""
    frames, starts = runs(0.0, 5, n_runs=96, per_run=20)
    check = equilibration_check(with_energy(frames, 1.2, 6), starts, SETTINGS)
    assert check["separated"] == [] and check["drifted"] == ["energy"] and check["equilibrated"] is False
    energy = next(test for test in check["drift"] if test["quantity"] == "energy")
    assert energy["means"]["hot"] > energy["means"]["native"] and energy["p"] < ALPHA / 3


def test_families_that_agree_drift_at_most_at_the_stated_rate():
    families = {"native": range(0, 40, 2), "hot": range(1, 40, 2)}
    alarms = [
        any(test["drifted"] for test in run_mean_tests(with_energy(runs(0.0, seed, 40, 10)[0], 0.0, seed), families))
        for seed in range(300)
    ]
    assert np.mean(alarms) <= ALPHA + 3 * np.sqrt(ALPHA * (1 - ALPHA) / len(alarms))
