"""Known answers as a sample of the engine's size shows them, and the difference intervals read against them."""

import numpy as np
import pandas as pd
import pytest

from westbench.calibration.known_answer import KnownAnswer, answer_at_size, difference_intervals
from westbench.calibration.table import COLUMNS, engine_rows, floor_medians, interval_coverage

from .test_table import run_frames

#: W1 is what these tests assert; the histogram KL keeps a bootstrap of 20 seeds to seconds.
SETTINGS = {"bootstrap": 100, "w1_2d_bins": 4, "kl_estimator": "histogram"}


def own_sample(n_runs, seed, shift):
    own = run_frames(n_runs, 25, seed, shift=shift, run_noise=0.3)
    own["weight"] = np.full(len(own["ca"]), 1.0 / len(own["ca"]))
    return own


def test_an_answer_drawn_to_the_whole_sample_is_the_answer_itself_and_smaller_draws_carry_more_excess():
    groundtruth = run_frames(30, 25, 0)
    suite = KnownAnswer(np.zeros(750), own_sample(20, 1, 0.0)).suite(groundtruth, SETTINGS)
    full = dict(zip(suite.binned.keys, suite.estimates(suite.weights("we"))))
    whole, drawn = answer_at_size(suite, effective_frames=10_000.0, seed=3)
    assert drawn == {"units": 20, "of_units": 20, "draws": 0} and whole == pytest.approx(full)
    small, drawn = answer_at_size(suite, effective_frames=100.0, seed=3)
    assert drawn == {"units": 4, "of_units": 20, "draws": 32}
    # the same equilibrium as the ground truth: every divergence is excess, and four runs carry more than twenty
    assert all(small[key] > full[key] for key in full if key[1] in ("tic0", "tic1"))
    assert answer_at_size(suite, 100.0, seed=3) == (small, drawn)  # seeded


def test_near_the_floor_the_answer_at_the_engines_size_is_held_at_the_stated_rate_and_the_bare_answer_is_not():
    """An engine of its known answer's equilibrium, a small shift from the ground truth's (its divergence about the
    size of the noise), in 6 runs against an own sample of 40: its score carries the excess of 6 runs, the answer
    that of 40. Read against the answer drawn to 6 runs' frames the difference interval holds 0 in about 95 % of 20
    seeds; read against the bare answer, less often (measured: 80 %)."""
    like, bare = [], []
    for seed in range(20):
        groundtruth = run_frames(40, 25, seed, run_noise=0.3)
        own = own_sample(40, 500 + seed, 0.1)
        engine = run_frames(6, 25, 1000 + seed, shift=0.1, run_noise=0.3)
        settings = {**SETTINGS, "seed": seed}
        low, high = difference_intervals(groundtruth, engine, np.zeros(1000), settings, own=own)[("w1", "tic0")]
        suite = KnownAnswer(np.zeros(1000), own).suite(groundtruth, settings)
        full = dict(zip(suite.binned.keys, suite.estimates(suite.weights("we"))))
        at_size, _ = answer_at_size(suite, float(len(engine["ca"])), seed)
        excess = at_size[("w1", "tic0")] - full[("w1", "tic0")]
        like.append(low <= excess <= high)
        bare.append(low <= 0.0 <= high)
    assert np.mean(like) >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / len(like))
    assert np.mean(bare) < np.mean(like)


def test_the_reference_equilibrium_answer_is_zero_in_every_resample_so_the_interval_is_the_scores_own():
    groundtruth = run_frames(30, 20, 0)
    engine = run_frames(8, 20, 1, shift=0.5)
    n = len(groundtruth["ca"])
    intervals = difference_intervals(groundtruth, engine, np.full(n, 1.0 / n), {**SETTINGS, "seed": 2})
    assert KnownAnswer(np.full(n, 1.0 / n)).is_reference() and not KnownAnswer(np.arange(n) + 1.0).is_reference()
    low, high = intervals[("w1", "tic0")]
    assert 0.0 < low < 0.5 < high  # the score's own interval: the answer adds no noise


def test_rows_read_the_difference_against_the_answer_at_the_engines_size():
    record = {
        "metrics": {
            "we": {
                "w1": {"tic0": 0.12},
                "intervals": {"w1": {"tic0": {"low": 0.05, "high": 0.2}}},
                "verdicts": {"w1": {"tic0": "within noise"}},
                "noise_floor": {"w1": {"tic0": {"value": 0.1, "low": 0.04, "high": 0.2}}},
            }
        }
    }
    # the null: its answer 0, at its size the floor's median; the bootstrap's interval of score minus 0
    predicted, at_size = {("w1", "tic0"): 0.0}, floor_medians(record, "we")
    assert at_size == {("w1", "tic0"): 0.1}
    differences = {("w1", "tic0"): (0.04, 0.19)}
    bare = pd.DataFrame(
        engine_rows("s", "reference", "null", {}, record, "we", predicted, differences), columns=COLUMNS
    )
    sized = pd.DataFrame(
        engine_rows("s", "reference", "null", {}, record, "we", predicted, differences, at_size), columns=COLUMNS
    )
    assert not bare.loc[0, "covers"] and sized.loc[0, "covers"]
    assert sized.loc[0, "predicted"] == 0.0 and sized.loc[0, "predicted_at_size"] == 0.1
    assert (sized.loc[0, "difference_low"], sized.loc[0, "difference_high"]) == pytest.approx((-0.06, 0.09))
    lean = interval_coverage(sized)["lean"]["all_cells"]
    assert lean == {"above": 1, "below": 0, "uncovered_above": 0, "uncovered_below": 0}
