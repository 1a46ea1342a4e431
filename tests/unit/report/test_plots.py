"""The report's TIC 0/1 free-energy density: a PNG of its documented size, its marked points drawn in red."""

import matplotlib.image
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.report.plots import tic_density

SHAPE = (504, 600)  # 5 x 4.2 inches at 120 dpi


def red_pixels(path):
    image = matplotlib.image.imread(path)[..., :3]
    return int(((image[..., 0] > 0.8) & (image[..., 1] < 0.2) & (image[..., 2] < 0.2)).sum())


def test_the_density_is_drawn_and_the_starts_marked_in_red(tmp_path):
    rng = np.random.default_rng(0)
    tics = rng.normal(size=(2000, 3))
    tic_density(tics, tmp_path / "plain.png", bins=30, title="ground truth")
    tic_density(tics, tmp_path / "marked.png", bins=30, marks=tics[:5, :2], weights=np.full(2000, 1 / 2000))
    for name in ("plain", "marked"):
        assert matplotlib.image.imread(tmp_path / f"{name}.png").shape[:2] == SHAPE
    assert red_pixels(tmp_path / "plain.png") == 0 and red_pixels(tmp_path / "marked.png") > 10


def test_no_marks_draws_no_legend_of_starts(tmp_path):
    tics = np.random.default_rng(1).normal(size=(500, 2))
    tic_density(tics, tmp_path / "a.png", bins=20, marks=np.zeros((0, 2)))
    assert red_pixels(tmp_path / "a.png") == 0


@settings(max_examples=10)
@given(st.integers(1, 30), st.floats(-5, 5))
def test_degenerate_samples_still_give_a_figure(tmp_path_factory, n, value):
    """A few frames, or every frame at one point (no spread in either TIC), still draw."""
    path = tmp_path_factory.mktemp("d") / "d.png"
    tic_density(np.full((n, 2), value), path, bins=10)
    assert matplotlib.image.imread(path).shape[:2] == SHAPE
