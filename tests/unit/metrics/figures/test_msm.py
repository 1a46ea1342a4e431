"""The grid MSM's figure: four panels from seeded trajectories; frames that give no MSM raise NotEstimable (the
figure becomes a placeholder saying why); the suite's MSM weights are drawn as given."""

import matplotlib.image
import numpy as np
import pytest

from westbench.metrics.estimability import NotEstimable
from westbench.metrics.figures.data import EngineFigureData
from westbench.metrics.figures.msm import draw_msm_reweighting, msm_reweighting

from .frames import frames


def test_four_panels_from_trajectories(tmp_path):
    groundtruth, model = frames(400, 0.0, 1), frames(300, 0.2, 2)
    msm_reweighting(model["tics"], model["traj"], model["weight"], tmp_path / "m.png", groundtruth["tics"], bins=10)
    image = matplotlib.image.imread(tmp_path / "m.png")
    assert image.shape[:2] == (418, 1870) and image[..., :3].std() > 0.01  # 17 x 3.8 inches at 110 dpi


def test_pieces_shorter_than_the_lag_give_no_msm(tmp_path):
    groundtruth, model = frames(400, 0.0, 1), frames(300, 0.2, 2)
    with pytest.raises(NotEstimable, match="no transitions at lag 2"):
        msm_reweighting(
            model["tics"], np.arange(300) // 2, model["weight"], tmp_path / "m.png", groundtruth["tics"], 10, lag=2
        )
    assert not (tmp_path / "m.png").exists()


def test_the_suites_weights_are_used_as_given(tmp_path):
    """The suite's MSM weights (a function) are asked for once and drawn; none is estimated here."""
    groundtruth, model = frames(400, 0.0, 1), frames(300, 0.2, 2)
    calls = []

    def suite_weights():
        calls.append(1)
        return np.full(300, 1 / 300)

    data = EngineFigureData.of(
        groundtruth,
        model,
        None,
        {},
        {},
        {"msm_bins": 10, "msm_lag": 1},
        distributions=({}, {}),
        msm_weights=suite_weights,
    )
    draw_msm_reweighting(data, tmp_path / "m.png")
    assert matplotlib.image.imread(tmp_path / "m.png").shape[:2] == (418, 1870) and calls == [1]
