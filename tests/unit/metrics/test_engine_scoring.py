"""One engine's frames scored in memory (score_frames): the record in the declared order, its parts from the steps
that build them, the tidy table with the run's rows, and an export with nothing to score."""

import numpy as np
import pytest

from westbench.metrics.engine_scoring import score_frames
from westbench.metrics.record import RECORD_FIELDS

SETTINGS = {"weightings": ["counts", "we"], "bootstrap": 0, "macrostate_clusters": 5, "macrostates": 2, "seed": 1}
TRAINING = {"learned": False, "best_epoch": 0, "epochs": 3, "relative_drop": 0.0, "min_relative_drop": 0.05}


def frames(seed, n=200, ended=0):
    rng = np.random.default_rng(seed)
    return {
        "ca": np.cumsum(rng.normal(0, 0.2, (n, 6, 3)), axis=1),
        "weight": np.full(n, 1 / n),
        "traj": np.repeat(np.arange(4), n // 4),
        "time_ps": np.tile(np.arange(n / 4), 4),
        "iteration": np.ones(n, int),
        "tics": rng.normal(0, 1, (n, 2)),
        "ok": np.r_[np.zeros(ended, np.int8), np.ones(n - ended, np.int8)],
    }


@pytest.fixture(scope="module")
def scored():
    return score_frames(frames(1), frames(2, ended=20), SETTINGS, protein="p", engine="e", training=TRAINING)


def test_the_record_has_the_declared_fields_in_order_from_each_step(scored):
    record = scored.record
    assert list(record) == [f.name for f in RECORD_FIELDS]  # training given: every field
    assert (record["frames"], record["frames_left_out"], record["groundtruth_frames"]) == (180, 20, 200)
    assert record["weight_left_out"] == pytest.approx(0.1) and "ended_walkers" in record["not_estimable"]
    assert "training" in record["not_estimable"] and record["training"] == TRAINING
    assert record["settings"] == {k: v for k, v in SETTINGS.items() if k != "weightings"}
    assert (
        list(record["metrics"]) == ["counts", "we"]
        and record["noise_floor"] == record["metrics"]["counts"]["noise_floor"]
    )
    assert (
        record["figures"] == {"weighting": "counts", "files": []}
        and record["kl_tic01_by_bins"]["weighting"] == "counts"
    )
    assert record["macrostates"]["requested"] == 2 and record["macrostates"]["shared_model"] is False
    assert record["resampling"]["replicates"] == 0 and record["resampling"]["level"] == 0.95


def test_the_table_ends_with_the_runs_rows(scored):
    table = scored.table
    assert list(table.columns[:2]) == ["protein", "engine"] and set(table["engine"]) == {"e"}
    tail = table.tail(4)[["distribution", "metric"]].values.tolist()
    assert tail == [
        ["time", "longest_simulated_ps"],
        ["time", "aggregate_simulated_ps"],
        ["macrostates", "n_used"],
        ["sanity", "failed"],
    ]
    rows = table.query("distribution == 'macrostates' and metric == 'total_variation'")
    assert rows["weighting"].tolist() == ["counts", "we"]
    assert rows["value"].tolist() == [
        scored.record["metrics"][w]["macrostate_populations"]["total_variation"] for w in ("counts", "we")
    ]


def test_an_export_of_ended_walkers_only_has_no_suite_and_the_empty_record():
    ended = score_frames(frames(1), frames(2, n=20, ended=20), SETTINGS, protein="p", engine="e")
    assert ended.suite is None and ended.table is None and ended.labels is None
    assert ended.record["frames_left_out"] == 20 and "all 20 exported frames" in ended.record["not_estimable"]["frames"]
