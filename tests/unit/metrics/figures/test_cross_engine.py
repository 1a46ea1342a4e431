"""One protein across its engines: a contour panel per engine on shared axes, and coverage against compute."""

import matplotlib.colors
import matplotlib.image
import numpy as np
import pandas as pd

from westbench.metrics.figures.cross_engine import (
    coverage_vs_compute,
    draw_coverage_vs_compute,
    draw_engines_tic01,
    engines_tic01,
)
from westbench.metrics.figures.data import ProteinFigureData

from .frames import frames

TAB10 = [matplotlib.colors.to_rgb(f"C{i}") for i in range(10)]
COLOURED = [rgb for i, rgb in enumerate(TAB10) if i != 7]  # C7 is the grey of the threshold lines


def image(path):
    return matplotlib.image.imread(path)[..., :3]


def has_colour(picture, rgb, tolerance=0.02):
    return int((np.abs(picture - np.array(rgb)).max(axis=-1) < tolerance).sum())


def cost(coverage):
    segments = np.cumsum(np.arange(1, len(coverage) + 1) * 3)
    return pd.DataFrame(
        {
            "coverage": coverage,
            "cumulative_segments": segments,
            "cumulative_cpu_seconds": segments * 2.0,
            "cumulative_wall_seconds": segments * 0.5,
        }
    )


def test_each_engine_gets_a_panel_side_by_side(tmp_path):
    groundtruth = frames(400, 0.0, 1)
    engines = {
        name: (frames(200, shift, seed)["tics"], np.full(200, 1 / 200))
        for name, shift, seed in (("a", 0.2, 2), ("b", 1.0, 3), ("c", -0.5, 4))
    }
    widths = {}
    for count in (1, 3):
        path = tmp_path / f"{count}.png"
        engines_tic01(groundtruth["tics"], groundtruth["weight"], dict(list(engines.items())[:count]), path, bins=20)
        height, widths[count] = image(path).shape[:2]
    assert widths[3] > 2 * widths[1]  # panels of equal size (bbox tight: a colorbar's width besides)
    engines_tic01(groundtruth["tics"], groundtruth["weight"], {}, tmp_path / "none.png", bins=20)
    assert image(tmp_path / "none.png").shape[1] < 1.2 * widths[1]  # no engine: the ground truth's panel alone


def test_coverage_is_drawn_for_the_engines_that_have_it_in_their_colour(tmp_path):
    costs = {"first": cost([0.1, 0.5, 0.9]), "second": pd.DataFrame({"iteration": [1, 2]}), "third": cost([0.2, 0.3])}
    coverage_vs_compute(costs, tmp_path / "c.png")
    picture = image(tmp_path / "c.png")
    assert picture.shape[:2] == (418, 1100)  # 10 x 3.8 inches at 110 dpi
    assert has_colour(picture, TAB10[0]) > 50 and has_colour(picture, TAB10[2]) > 50
    assert has_colour(picture, TAB10[1]) == 0  # the engine without a coverage column is not drawn


def test_no_engine_still_writes_the_empty_plot(tmp_path):
    coverage_vs_compute({}, tmp_path / "c.png", gpu=True)
    picture = image(tmp_path / "c.png")
    assert picture.shape[:2] == (418, 1100) and all(has_colour(picture, rgb) == 0 for rgb in COLOURED)


def test_the_registry_functions_draw_from_the_protein_data(tmp_path):
    groundtruth = frames(200, 0.0, 1)
    data = ProteinFigureData(
        groundtruth["tics"],
        groundtruth["weight"],
        {"x": (frames(200, 0.3, 2)["tics"], np.ones(200))},
        costs={"x": cost([0.1, 0.6])},
        bins=15,
        gpu=True,
    )
    draw_engines_tic01(data, tmp_path / "e.png")
    draw_coverage_vs_compute(data, tmp_path / "c.png")
    assert image(tmp_path / "e.png").std() > 0.01 and has_colour(image(tmp_path / "c.png"), TAB10[0]) > 50
