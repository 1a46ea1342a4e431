"""Where the model went: one panel per TIC pair the data has, coloured by WE iteration, or by run (and TIC 3) when
the frames have a single iteration."""

import matplotlib.image
import pytest

from westbench.metrics.figures.coverage import draw_tic01_by_iteration, tic01_by_iteration
from westbench.metrics.figures.data import EngineFigureData

from .frames import frames

PANEL_PX, HEIGHT_PX = 4.6 * 110, 4 * 110  # each panel 4.6 x 4 inches at 110 dpi


def panels(path):
    height, width = matplotlib.image.imread(path).shape[:2]
    assert height == HEIGHT_PX
    return width / PANEL_PX


@pytest.mark.parametrize("dims, expected", [(2, 1), (3, 2), (4, 3), (6, 3)])
def test_one_panel_per_tic_pair_the_data_has(tmp_path, dims, expected):
    groundtruth, model = frames(200, 0.0, 1, dims), frames(200, 0.5, 2, dims)
    tic01_by_iteration(groundtruth["tics"], model["tics"], model["iteration"], tmp_path / "f.png", max_points=150)
    assert panels(tmp_path / "f.png") == pytest.approx(expected, abs=0.01)


def test_a_single_iteration_is_coloured_by_run_with_a_tic3_panel(tmp_path):
    groundtruth = frames(200, 0.0, 1)
    tic01_by_iteration(
        groundtruth["tics"], groundtruth["tics"], [0] * 200, tmp_path / "runs.png", runs=groundtruth["traj"]
    )
    assert panels(tmp_path / "runs.png") == pytest.approx(4, abs=0.01)  # three pairs and TIC 0/1 by TIC 3
    # without runs there is nothing to colour by but the (constant) iteration: no extra panel
    tic01_by_iteration(groundtruth["tics"], groundtruth["tics"], [0] * 200, tmp_path / "flat.png")
    assert panels(tmp_path / "flat.png") == pytest.approx(3, abs=0.01)


def test_the_registry_function_draws_from_the_job_data(tmp_path):
    groundtruth, model = frames(200, 0.0, 1, 3), frames(300, 0.5, 2, 3)
    data = EngineFigureData.of(groundtruth, model, None, {}, {}, {"scatter_max_points": 100}, distributions=({}, {}))
    draw_tic01_by_iteration(data, tmp_path / "f.png")
    assert panels(tmp_path / "f.png") == pytest.approx(2, abs=0.01)
