"""Verdicts that cannot fire are undetermined with their reason: few frames carry the weight, a floor above the
largest reachable KL, a TIC without a timescale; floors are matched on the effective sample size; a WE run's blocks
are as long as its memory."""

import numpy as np
import pytest

from westbench.io.frames import Frames
from westbench.metrics.resampling import iteration_blocks
from westbench.metrics.suite import MetricSuite

SETTINGS = {"bootstrap": 50, "seed": 1, "bins": 20, "w1_2d_bins": 8, "min_effective_frames": 5}


def frames(n_runs, per_run, seed, shift=0.0, weight=None, attrs=None):
    rng = np.random.default_rng(seed)
    n = n_runs * per_run
    out = Frames(
        ca=np.cumsum(rng.normal(0, 0.2, (n, 5, 3)), axis=1),
        tics=rng.normal(shift, 1.0, (n, 4)),
        weight=np.full(n, 1 / n) if weight is None else weight,
        traj=np.repeat(np.arange(n_runs), per_run),
        time_ps=np.tile(np.arange(per_run, dtype=float), n_runs),
        iteration=np.zeros(n, int),
    )
    out.attrs = dict(attrs or {})
    return out


def test_weights_that_few_frames_carry_leave_every_verdict_undetermined_with_the_reason():
    weight = np.full(400, 1e-9)
    weight[:3] = 1.0  # three frames hold the weight
    values, table = MetricSuite(frames(20, 20, 1), frames(20, 20, 2, 2.0, weight), SETTINGS).score("we")
    assert values["effective_frames"] == pytest.approx(3.0, rel=1e-3)
    assert set(table[table["metric"].isin(["w1", "kl"])]["verdict"]) == {"undetermined"}
    assert "few frames carry the weight" in values["verdict_notes"]["w1"]["tic0"]
    even = MetricSuite(frames(20, 20, 1), frames(20, 20, 2, 2.0), SETTINGS).score("we")[0]
    assert even["verdicts"]["w1"]["tic0"] == "separated"


def test_a_floor_above_the_largest_kl_any_model_could_reach_is_undetermined_not_within_noise():
    """Few ground-truth frames over many bins: the ground truth's own splits leave most bins empty, so its floor sits
    at the KL of a model with all its mass elsewhere, which no model can clear."""
    settings = {**SETTINGS, "bins": 400, "kl_estimator": "histogram"}
    suite = MetricSuite(frames(6, 4, 3), frames(20, 20, 4, 0.3), settings)
    values, _ = suite.score("we")
    reachable = dict(zip(suite.binned.keys, suite.largest_reachable()))
    assert values["noise_floor"]["kl"]["tic0"]["high"] >= reachable[("kl", "tic0")] - 1e-9
    assert values["verdicts"]["kl"]["tic0"] == "undetermined"
    assert values["verdict_notes"]["kl"]["tic0"].startswith("cannot be separated")
    assert values["kl_marks"]["tic0"] == "pinned"  # the floor reads half or more of the largest reachable KL
    assert np.isinf(reachable[("w1", "tic0")])


def test_a_tic_without_a_timescale_gets_no_verdict_and_the_record_a_caveat():
    attrs = {"tica_caveat": "TIC 2 has a negative eigenvalue", "tica_tics_without_timescale": "[2]"}
    suite = MetricSuite(frames(20, 20, 5, attrs=attrs), frames(20, 20, 6, 2.0), SETTINGS)
    values, _ = suite.score("we")
    assert values["verdicts"]["w1"]["tic2"] == "undetermined" and "TIC 2" in values["verdict_notes"]["w1"]["tic2"]
    assert values["verdicts"]["w1"]["tic0"] == "separated" and values["verdicts"]["w1"]["tic01"] == "separated"
    assert "tica" in suite.caveats.reasons


def test_the_floor_is_measured_at_the_effective_sample_size_not_the_frame_count():
    gt = frames(40, 10, 7)
    uneven = np.random.default_rng(8).pareto(1.0, 400) + 1e-3
    suite = MetricSuite(gt, frames(40, 10, 9, weight=uneven / uneven.sum()), {**SETTINGS, "min_effective_frames": 1})
    even, weighted = suite.score("counts")[0], suite.score("we")[0]
    assert weighted["effective_frames"] < 0.5 * even["effective_frames"]
    assert weighted["noise_floor"]["units"] < even["noise_floor"]["units"]
    assert weighted["noise_floor"]["w1"]["tic0"]["value"] > even["noise_floor"]["w1"]["tic0"]["value"]


def we_run(memory: float, iterations: int = 200, seed: int = 0):
    """One WE-like run whose per-iteration TIC means follow an AR(1) of coefficient ``memory``."""
    rng = np.random.default_rng(seed)
    means = np.zeros(iterations)
    for t in range(1, iterations):
        means[t] = memory * means[t - 1] + rng.normal()
    per = 6
    return {
        "iteration": np.repeat(np.arange(1, iterations + 1), per),
        "weight": np.full(iterations * per, 1.0 / per),
        "tics": np.repeat(means, per)[:, None] + 0.1 * rng.normal(size=(iterations * per, 2)),
    }


@pytest.mark.parametrize("seed", range(3))
def test_a_run_with_a_long_memory_is_cut_into_fewer_longer_blocks(seed):
    _, white_blocks, white_tau = iteration_blocks(we_run(0.0, 60, seed), 10, 2.0)
    _, slow_blocks, slow_tau = iteration_blocks(we_run(0.95, 60, seed), 10, 2.0)
    assert white_tau < 2.0 and white_blocks == 10
    assert slow_tau > 3.0 and slow_blocks < 10 and 60 // slow_blocks >= 2.0 * slow_tau
    assert iteration_blocks(we_run(0.95, 60, seed), 10, 0.0)[1] == 10  # 0: equal blocks whatever the memory
