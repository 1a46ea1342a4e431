"""The figures' data of a job: uniform weights (and the caveat) where none could be estimated, the metric
settings' defaults under the job's, WE fields where the frames lack them, the suite's MSM weights asked once."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from westbench.config import default, section_defaults
from westbench.metrics.estimability import Caveats, NotEstimable
from westbench.metrics.figures.data import EngineFigureData, ProteinFigureData

from .frames import frames


def of(groundtruth, model, weights=None, settings=None, caveats=None, msm_weights=None):
    return EngineFigureData.of(groundtruth, model, weights, {}, {}, settings or {}, "m", ({}, {}), caveats, msm_weights)


@given(st.integers(1, 50), st.lists(st.floats(0.01, 100), min_size=1, max_size=20))
def test_no_weighting_gives_uniform_weights_and_the_caveat(n, groundtruth_weights):
    groundtruth = {"tics": np.zeros((len(groundtruth_weights), 2)), "weight": np.array(groundtruth_weights)}
    caveats = Caveats()
    data = of(groundtruth, {"tics": np.ones((n, 2))}, caveats=caveats)
    assert np.allclose(data.weights, 1 / n) and data.weights.sum() == pytest.approx(1)
    assert "no weighting" in caveats.reasons["figures"]
    assert np.allclose(data.groundtruth_weights, np.array(groundtruth_weights) / sum(groundtruth_weights))


def test_given_weights_are_kept_and_no_caveat_recorded():
    caveats, weights = Caveats(), np.array([0.2, 0.8])
    data = of(frames(100, 0, 1), {"tics": np.ones((2, 3))}, weights, caveats=caveats)
    assert data.weights is weights and caveats.reasons == {}


def test_settings_are_the_metric_defaults_under_the_jobs():
    data = of(frames(100, 0, 1), {"tics": np.ones((2, 2))}, settings={"bins": 7, "seed": 5})
    assert data.settings.bins == 7 and data.settings.seed == 5
    assert data.settings.msm_lag == section_defaults("metrics")["msm_lag"]
    assert of(frames(100, 0, 1), {"tics": np.ones((2, 2))}).settings.seed == 0


def test_we_fields_default_where_the_frames_lack_them():
    model = frames(100, 0.5, 2)
    with_fields = of(frames(100, 0, 1), model)
    assert with_fields.iteration.tolist() == model["iteration"].tolist() and with_fields.raw_weights is model["weight"]
    bare = of(frames(100, 0, 1), {"tics": model["tics"]})
    assert bare.iteration.tolist() == [0] * 100 and bare.raw_weights.tolist() == [1.0] * 100


def test_msm_weights_are_the_suites_once_else_estimated_here():
    calls = []
    data = of(frames(100, 0, 1), frames(100, 0, 2), msm_weights=lambda: calls.append(1) or np.full(100, 0.01))
    assert data.msm_weights.sum() == pytest.approx(1) and data.msm_weights.sum() == pytest.approx(1)
    assert calls == [1]
    estimated = of(frames(200, 0, 1), frames(200, 0.2, 2), settings={"msm_bins": 8}).msm_weights
    assert estimated.shape == (200,) and estimated.sum() == pytest.approx(1) and (estimated >= 0).all()
    single_frames = {**frames(100, 0, 2), "traj": np.arange(100)}
    with pytest.raises(NotEstimable):
        _ = of(frames(100, 0, 1), single_frames).msm_weights


def test_protein_data_defaults():
    data = ProteinFigureData(np.zeros((3, 2)), np.ones(3))
    assert data.engines == {} and data.costs == {} and data.bins == default("metrics.bins")
    assert data.thresholds == (0.2, 0.5, 0.8) and data.gpu is False
