"""The metric suite's scores of one weighting: every statistic's row, its verdict and why it is undetermined."""

import numpy as np

from westbench.metrics.noise_floor import UNDETERMINED
from westbench.metrics.suite import TABLE_COLUMNS, MetricSuite


def frames(seed, weight=None):
    rng = np.random.default_rng(seed)
    n = 120
    return {
        "ca": np.cumsum(rng.normal(0, 0.2, (n, 5, 3)), axis=1).astype(np.float32),
        "tics": rng.normal(size=(n, 2)),
        "weight": np.full(n, 1 / n) if weight is None else weight,
        "traj": np.repeat(np.arange(12), 10),
    }


def test_without_bootstrap_every_verdict_is_undetermined_with_the_reason_in_its_row():
    suite = MetricSuite(frames(0), frames(1), {"seed": 0, "floor_splits": 5})
    values, table = suite.score("counts")
    assert list(table.columns) == TABLE_COLUMNS
    statistics = table[table["metric"].isin(["w1", "kl"])]
    assert len(statistics) == len(suite.binned.keys) and (statistics["verdict"] == UNDETERMINED).all()
    assert statistics["note"].str.contains("metrics.bootstrap is 0").all()
    assert values["verdict_notes"]["w1"]["tic0"] == suite.caveats.reasons["counts/intervals"]
    assert values["w1"]["tic0"] > 0 and values["noise_floor"]["units"] >= 1 and values["coverage"] > 0


def test_a_weighting_that_cannot_be_had_scores_nothing_and_says_why():
    weight = np.full(120, 1 / 120)
    weight[0] = -1.0
    suite = MetricSuite(frames(0), frames(1, weight), {"seed": 0})
    values, table = suite.score("we")
    assert all(value is None for value in values["w1"].values()) and values["coverage"] is None
    assert "not a distribution" in suite.caveats.reasons["we"]
    assert table["note"].str.contains("not a distribution").all()


def test_with_intervals_a_verdict_rests_on_the_interval_against_the_floor():
    suite = MetricSuite(frames(0), frames(1), {"seed": 0, "floor_splits": 5, "bootstrap": 20})
    scored = suite.weighting_pass("counts", suite.weights("counts"), suite.effective_frames("counts"))
    assert scored.interval is not None and scored.floor is not None and scored.few == ""
    values, _ = suite.score("counts")
    low = values["intervals"]["w1"]["tic0"]["low"]
    assert low is not None and low <= values["w1"]["tic0"] <= values["intervals"]["w1"]["tic0"]["high"]
    assert values["verdicts"]["w1"]["tic0"] in {"separated", "within noise", UNDETERMINED}
