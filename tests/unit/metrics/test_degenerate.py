"""Every metric, weighting and figure completes on degenerate frame sets: null with a reason, never a crash.

The cases the robustness issue names (an MSM that cannot be estimated, no overlap with the ground truth,
one frame, one iteration, all frames in one grid cell, a constant TIC, one ground-truth run) are built
directly, then hypothesis draws small frame sets mixing them. Nothing here depends on one machine's
trajectories: the data are generated.
"""

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from westbench.io.frames import write_frames
from westbench.metrics.figures import coverage_vs_compute, engines_tic01
from westbench.metrics.record import RECORD_FIELDS, RECORD_KEYS, WEIGHTING_FIELDS
from westbench.metrics.score import score_engine
from westbench.metrics.suite import WEIGHTINGS, MetricSuite

SETTINGS = {
    "weightings": list(WEIGHTINGS),
    "bootstrap": 30,
    "floor_splits": 10,
    "macrostate_clusters": 10,
    "macrostates": 3,
    "seed": 7,
    "bins": 20,
    "msm_bins": 10,
    "coverage_bins": 10,
    "w1_2d_bins": 6,
    "kl_sensitivity_bins": [5, 10],
    "scatter_max_points": 1000,
}


def frames(
    n, *, runs=1, seed=0, shift=0.0, constant_tic=False, one_cell=False, iterations=None, segment=None, residues=5
):
    """A frame set of ``n`` frames: ``runs`` runs, or a WE export of ``iterations`` with segments of ``segment``."""
    rng = np.random.default_rng(seed)
    ca = np.cumsum(rng.normal(0, 0.2, size=(n, residues, 3)), axis=1) + 0.38 * np.arange(residues)[None, :, None]
    tics = rng.normal(size=(n, 3)) + shift
    if constant_tic:
        tics[:, 0] = 1.5
    if one_cell:
        tics[:] = tics[0]
    data = {
        "ca": ca.astype(np.float32),
        "tics": tics,
        "weight": np.full(n, 1.0 / n),
        "time_ps": np.arange(n, dtype=float),
        "traj": np.arange(n) * runs // max(n, 1),
        "iteration": np.ones(n, int),
    }
    if iterations is not None:
        segment = segment or max(1, n // iterations)
        data["iteration"] = 1 + (np.arange(n) * iterations) // max(n, 1)
        data["traj"] = np.arange(n) // segment
        data["seg_id"] = data["traj"] % 7
        for it in np.unique(data["iteration"]):
            members = data["iteration"] == it
            data["weight"][members] = 1.0 / members.sum()
    return data


CASES = {
    "msm has no transitions (one-frame segments)": (frames(40, runs=4), frames(12, iterations=3, segment=1, seed=1)),
    "msm never returns (segments that never revisit a cell)": (
        frames(60, runs=3),
        dict(
            frames(120, iterations=2, segment=10, seed=2),
            tics=np.column_stack([np.arange(120.0), np.arange(120.0) * 0.5, np.zeros(120)]),
        ),
    ),
    "no overlap with the ground truth": (frames(40, runs=4), frames(30, runs=3, seed=3, shift=100.0)),
    "one model frame": (frames(40, runs=4), frames(1, seed=4)),
    "one iteration": (frames(40, runs=4), frames(20, iterations=1, segment=5, seed=5)),
    "all frames in one grid cell": (frames(40, runs=4), frames(20, runs=2, seed=6, one_cell=True)),
    "a constant TIC": (frames(40, runs=4, constant_tic=True), frames(20, runs=2, seed=7, constant_tic=True)),
    "one ground-truth run": (frames(30, runs=1), frames(20, runs=4, seed=8)),
    "one ground-truth frame": (frames(1), frames(10, runs=2, seed=9)),
}


def score(tmp_path, groundtruth, model, settings=SETTINGS):
    for name, data in (("groundtruth", groundtruth), ("model", model)):
        data = {k: v for k, v in data.items()}
        write_frames(tmp_path / f"{name}.h5", **data)
    record = score_engine(
        tmp_path / "groundtruth.h5",
        tmp_path / "model.h5",
        settings,
        protein="p",
        engine="e",
        json_path=tmp_path / "metrics.json",
        csv_path=tmp_path / "metrics.csv",
        figures_dir=tmp_path / "figures",
    )
    return record


def assert_complete(folder, record, weightings=WEIGHTINGS):
    """Every declared key; every number finite or null with a reason; no figure lost to an unexpected error."""
    assert {f.name for f in RECORD_FIELDS if not f.optional} <= set(record) <= set(RECORD_KEYS)
    written = json.loads(
        (folder / "metrics.json").read_text(), parse_constant=lambda name: pytest.fail(f"metrics.json holds {name}")
    )
    assert written == json.loads(json.dumps(record))
    reasons = record["not_estimable"]
    assert all(isinstance(reason, str) and reason for reason in reasons.values())
    declared = {f.name for f in WEIGHTING_FIELDS}
    for weighting in weightings:
        values = record["metrics"][weighting]
        # one shape whether the weighting was scored, could not be had, or the engine left nothing to score
        assert {f.name for f in WEIGHTING_FIELDS if not f.optional} <= set(values) <= declared, set(values) ^ declared
        for metric in ("w1", "kl"):
            for name, value in values[metric].items():
                if value is None:
                    assert {weighting, f"{weighting}/{metric}/{name}"} & set(reasons), (weighting, metric, name)
                else:
                    assert math.isfinite(value) and value >= 0, (weighting, metric, name, value)
                    interval = values["intervals"][metric].get(name)
                    if interval is None:
                        assert f"{weighting}/intervals" in reasons
                    else:
                        assert interval["low"] <= value <= interval["high"]
    assert not [key for key, reason in reasons.items() if reason.startswith("could not be drawn")], reasons
    assert all((folder / "figures" / name).is_file() for name in record["figures"]["files"])
    table = pd.read_csv(folder / "metrics.csv")
    numbers = table["value"].dropna().astype(float)
    assert np.isfinite(numbers).all()
    missing = table[table["value"].isna() & table["metric"].isin(["w1", "kl"])]
    assert missing["note"].notna().all(), missing


@pytest.mark.parametrize("case", list(CASES))
def test_every_named_degenerate_case_completes(tmp_path, case):
    groundtruth, model = CASES[case]
    record = score(tmp_path, groundtruth, model)
    assert_complete(tmp_path, record)


def test_the_explicit_engine_that_broke_the_default_run_on_another_cpu(tmp_path):
    """Two WE iterations of segments that never revisit a grid cell: the grid MSM is not estimable (it made
    deeptime raise), so the msm weighting is null with its reason and every other weighting is scored."""
    groundtruth, model = CASES["msm never returns (segments that never revisit a cell)"]
    record = score(tmp_path, groundtruth, model)
    assert "msm" in record["not_estimable"] and "connected set" in record["not_estimable"]["msm"]
    assert all(value is None for value in record["metrics"]["msm"]["w1"].values())
    assert all(value is not None for value in record["metrics"]["we"]["w1"].values())
    assert "figure/msm_reweighting" in record["not_estimable"]


def test_an_engine_whose_walkers_all_ended_is_scored_as_nothing_with_the_reason(tmp_path):
    model = dict(frames(20, iterations=2, segment=5), ok=np.zeros(20, np.int8))
    record = score(tmp_path, frames(40, runs=4), model)
    assert record["frames"] == 0 and "walkers the engine ended" in record["not_estimable"]["frames"]
    assert all((tmp_path / "figures" / name).is_file() for name in record["figures"]["files"])


@st.composite
def degenerate_pair(draw):
    seed = draw(st.integers(0, 10_000))
    gt = frames(
        draw(st.integers(1, 30)),
        runs=draw(st.integers(1, 4)),
        seed=seed,
        constant_tic=draw(st.booleans()),
        one_cell=draw(st.booleans()),
    )
    n = draw(st.integers(1, 30))
    style = draw(st.sampled_from(["runs", "we"]))
    kwargs = dict(
        seed=seed + 1,
        shift=draw(st.sampled_from([0.0, 0.5, 1e3])),
        constant_tic=draw(st.booleans()),
        one_cell=draw(st.booleans()),
    )
    if style == "we":
        model = frames(n, iterations=draw(st.integers(1, 4)), segment=draw(st.integers(1, 6)), **kwargs)
    else:
        model = frames(n, runs=draw(st.integers(1, 3)), **kwargs)
    return gt, model


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(degenerate_pair())
def test_random_small_and_degenerate_frame_sets_complete(tmp_path_factory, pair):
    folder = tmp_path_factory.mktemp("degenerate")
    record = score(folder, *pair)
    assert_complete(folder, record)


@settings(max_examples=25, deadline=None)
@given(degenerate_pair())
def test_weights_of_every_estimable_weighting_are_normalized(pair):
    suite = MetricSuite(*pair, SETTINGS)
    for weighting in WEIGHTINGS:
        suite.score(weighting)
        if weighting not in suite.caveats.reasons:
            assert suite.weights(weighting).sum() == pytest.approx(1.0, rel=1e-12)
            assert (suite.weights(weighting) >= 0).all()


@pytest.mark.parametrize("case", ["one model frame", "all frames in one grid cell", "no overlap with the ground truth"])
def test_the_protein_figures_draw_degenerate_engines(tmp_path, case):
    groundtruth, model = CASES[case]
    engines_tic01(
        groundtruth["tics"],
        groundtruth["weight"],
        {"e": (model["tics"], model["weight"])},
        tmp_path / "contours.png",
        bins=20,
    )
    cost = pd.DataFrame(
        {
            "iteration": [1],
            "coverage": [0.0],
            "cumulative_segments": [1],
            "cumulative_cpu_seconds": [0.1],
            "cumulative_wall_seconds": [0.1],
        }
    )
    coverage_vs_compute({"e": cost, "empty": cost.iloc[0:0]}, tmp_path / "coverage.png")
    assert (tmp_path / "contours.png").stat().st_size > 0 and (tmp_path / "coverage.png").stat().st_size > 0
