"""Every registered figure of a job into its file: a figure the data cannot give is a placeholder whose reason is
recorded in the caveats; the across-engine figures are written where asked."""

import matplotlib.image
import numpy as np
import pandas as pd

from westbench.metrics.estimability import Caveats
from westbench.metrics.figure_list import ENGINE, PROTEIN, figures
from westbench.metrics.figures.data import ProteinFigureData
from westbench.metrics.figures.write import write_metric_figures, write_protein_figures

from .frames import frames

PLACEHOLDER_SHAPE = (242, 660)  # 6 x 2.2 inches at 110 dpi


def test_every_engine_figure_is_written_and_what_the_data_lacks_is_explained(tmp_path):
    """No scores and no macrostates given: the contact map and the macrostates are placeholders, each with its
    reason in the caveats; the figures the frames alone give are drawn."""
    caveats = Caveats()
    settings = {"bins": 20, "scatter_max_points": 500, "msm_bins": 10}
    paths = write_metric_figures(
        tmp_path / "figs", frames(300, 0, 1), frames(200, 0.3, 2), None, {}, {}, settings, caveats=caveats
    )
    assert list(paths) == [entry.name for entry in figures(ENGINE)]
    shapes = {name: matplotlib.image.imread(path).shape[:2] for name, path in paths.items()}
    assert all(path == tmp_path / "figs" / f"{name}.png" for name, path in paths.items())
    explained = {key.removeprefix("figure/") for key in caveats.reasons if key.startswith("figure/")}
    assert {"contact_map_difference", "macrostates"} <= explained
    assert {name for name, shape in shapes.items() if shape == PLACEHOLDER_SHAPE} == explained
    assert "tic01_by_iteration" not in explained and "no weighting" in caveats.reasons["figures"]


def test_protein_figures_go_where_asked(tmp_path):
    groundtruth = frames(200, 0, 1)
    cost = pd.DataFrame({"coverage": [0.2, 0.7], "cumulative_segments": [3, 9], "cumulative_cpu_seconds": [1.0, 4.0]})
    data = ProteinFigureData(
        groundtruth["tics"], groundtruth["weight"], {"e": (frames(200, 0.3, 2)["tics"], np.ones(200))}, {"e": cost}, 15
    )
    asked = {entry.name: tmp_path / f"{entry.name}-custom.png" for entry in figures(PROTEIN)}
    written = write_protein_figures(data, {name: str(path) for name, path in asked.items()})
    assert written == asked and all(path.stat().st_size > 1000 for path in asked.values())
