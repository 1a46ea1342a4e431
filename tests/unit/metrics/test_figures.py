"""Every figure of the suite is written, named consistently, and draws what it says."""

import matplotlib.image
import numpy as np

from westbench.metrics.figures import FIGURES, contact_map_difference, write_metric_figures
from westbench.metrics.suite import MetricSuite


def synthetic(n, shift, seed):
    rng = np.random.default_rng(seed)
    ca = np.cumsum(rng.normal(0, 0.22, size=(n, 8, 3)), axis=1).astype(np.float32)
    centre = np.repeat(np.tile([0.0, 3.0], n // 100), 50)[:n]
    tics = (centre[:, None] + rng.normal(0, 0.3, (n, 10)) + shift).astype(np.float32)
    return {
        "ca": ca,
        "tics": tics,
        "weight": np.full(n, 1 / n),
        "traj": np.repeat(np.arange(n // 50), 50),
        "iteration": np.repeat(np.arange(n // 100) + 1, 100),
    }


def test_every_figure_is_a_png_with_the_documented_name(tmp_path):
    groundtruth, model = synthetic(1000, 0.0, 1), synthetic(800, 0.5, 2)
    suite = MetricSuite(groundtruth, model, {"macrostate_clusters": 10, "macrostates": 2, "seed": 3})
    values, _ = suite.score("we")
    paths = write_metric_figures(
        tmp_path,
        groundtruth,
        model,
        suite.weights("we"),
        values,
        suite.macrostates(),
        {"bins": 30, "scatter_max_points": 2000},
        label="implicit",
    )
    assert sorted(paths) == sorted(FIGURES)
    for name, path in paths.items():
        assert path == tmp_path / f"{name}.png"
        image = matplotlib.image.imread(path)
        assert image.ndim == 3 and image.shape[0] > 200 and image[..., :3].std() > 0.01, name


def test_contact_map_colours_farther_pairs_red_and_closer_blue(tmp_path):
    difference = np.zeros((6, 6))
    difference[0, 5] = difference[5, 0] = 3.0
    difference[1, 2] = difference[2, 1] = -3.0
    path = tmp_path / "contact.png"
    contact_map_difference(difference, path)
    image = matplotlib.image.imread(path)[..., :3]
    red = (image[..., 0] > 0.5) & (image[..., 2] < 0.3)
    blue = (image[..., 2] > 0.5) & (image[..., 0] < 0.3)
    assert red.sum() > 100 and blue.sum() > 100


def test_figures_across_engines_render_with_data(tmp_path):
    import pandas as pd

    from westbench.metrics.figures import coverage_vs_compute, engines_tic01

    groundtruth = synthetic(1000, 0.0, 1)
    engines = {
        name: (synthetic(800, shift, seed)["tics"], np.full(800, 1 / 800))
        for name, shift, seed in (("cg_undertrained", 1.0, 2), ("cg_fulltrained", 0.1, 3))
    }
    engines_tic01(groundtruth["tics"], groundtruth["weight"], engines, tmp_path / "contours.png", bins=40)
    image = matplotlib.image.imread(tmp_path / "contours.png")
    assert image.shape[1] > 1.5 * image.shape[0]  # two panels side by side
    cost = pd.DataFrame(
        {
            "iteration": [1, 2, 3],
            "coverage": [0.1, 0.4, 0.9],
            "cumulative_segments": [3, 9, 18],
            "cumulative_cpu_seconds": [1.0, 3.0, 6.0],
            "cumulative_wall_seconds": [1.0, 3.0, 6.0],
        }
    )
    coverage_vs_compute({"implicit": cost, "cg": cost.assign(coverage=[0.3, 0.6, 0.95])}, tmp_path / "cov.png")
    image = matplotlib.image.imread(tmp_path / "cov.png")
    assert image[..., :3].std() > 0.01


def test_ground_truth_scatter_is_coloured_by_run_not_a_constant_iteration(tmp_path):
    from westbench.metrics.figures import tic01_by_iteration

    groundtruth = synthetic(1000, 0.0, 1)
    flat = groundtruth["iteration"] * 0
    tic01_by_iteration(groundtruth["tics"], groundtruth["tics"], flat, tmp_path / "gt.png", runs=groundtruth["traj"])
    tic01_by_iteration(
        groundtruth["tics"],
        groundtruth["tics"],
        groundtruth["iteration"],
        tmp_path / "we.png",
        runs=groundtruth["traj"],
    )
    by_run, by_iteration = (matplotlib.image.imread(tmp_path / name) for name in ("gt.png", "we.png"))
    assert by_run.shape[1] > by_iteration.shape[1]  # the extra TIC 3 panel


def test_the_macrostate_legend_lists_each_state_drawn_in_either_panel_once(tmp_path, monkeypatch):
    """A legend entry has points: state 1 is in neither panel (no entry), state 2 only in the ground truth's."""
    import westbench.metrics.figures.structure as structure

    shown = {}
    monkeypatch.setattr(structure, "save", lambda figure, path: shown.setdefault("figure", figure))
    tics = np.random.default_rng(0).normal(size=(6, 2))
    structure.macrostate_scatter(
        tics, np.array([0, 0, 2, 2, -1, 0]), tics, np.array([0, 0, 0, -1, -1, 0]), tmp_path / "m.png"
    )
    legend = shown["figure"].axes[1].get_legend()
    assert [text.get_text() for text in legend.get_texts()] == ["macrostate 0", "macrostate 2"]
