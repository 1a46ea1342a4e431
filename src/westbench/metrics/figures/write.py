"""Every registered figure of one job into its file (:mod:`westbench.metrics.figure_list`), each drawn from the
job's data computed once (:mod:`westbench.metrics.figures.data`); a figure the data cannot give is a
placeholder saying why."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Mapping

import numpy as np

from westbench.metrics.estimability import Caveats
from westbench.metrics.figure_list import ENGINE, PROTEIN, figures
from westbench.metrics.figures.base import draw_or_explain
from westbench.metrics.figures.data import EngineFigureData, ProteinFigureData
from westbench.metrics.settings import MetricSettings


def write_metric_figures(
    folder,
    groundtruth: Mapping,
    model: Mapping,
    weights: np.ndarray | None,
    values: Mapping,
    labels: Mapping,
    settings: MetricSettings | Mapping,
    label: str = "model",
    distributions: tuple[Mapping, Mapping] | None = None,
    caveats: Caveats | None = None,
    msm_weights: Callable[[], np.ndarray] | None = None,
) -> dict[str, Path]:
    """Every per-engine figure of the registry (one (protein, engine)) into ``folder``; returns {name: path}.

    ``weights`` are the model's frame weights (None: no weighting could be estimated; uniform
    weights are drawn and the caveat recorded), ``values`` the suite's scores (for the contact
    map), ``labels`` the macrostate assignment of
    :meth:`westbench.metrics.suite.MetricSuite.macrostates`, ``distributions`` the suite's
    (reference, sample) per-frame values (computed here when not given), ``msm_weights`` the suite's
    MSM weights (a function; estimated here once when not given). A figure the data
    cannot give is a placeholder saying why, recorded in ``caveats`` (``figure/<name>``).
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    caveats = Caveats() if caveats is None else caveats
    data = EngineFigureData.of(
        groundtruth, model, weights, values, labels, settings, label, distributions, caveats, msm_weights
    )
    return _draw_all(ENGINE, data, {entry.name: folder / f"{entry.name}.png" for entry in figures(ENGINE)}, caveats)


def write_protein_figures(data: ProteinFigureData, paths: Mapping[str, str | Path]) -> dict[str, Path]:
    """Every across-engine figure of the registry (one protein) into ``paths`` ({name: file}); returns them.

    Unlike an engine's figures these have no placeholder: an error fails the job (its inputs are every engine's)."""
    paths = {entry.name: Path(paths[entry.name]) for entry in figures(PROTEIN)}
    for entry in figures(PROTEIN):
        entry.function()(data, paths[entry.name])
    return paths


def _draw_all(scope: str, data, paths: dict[str, Path], caveats: Caveats) -> dict[str, Path]:
    for entry in figures(scope):
        function = entry.function()
        draw_or_explain(paths[entry.name], entry.name, lambda: function(data, paths[entry.name]), caveats)
    return paths
