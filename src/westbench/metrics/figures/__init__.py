"""Figures of the metric suite (matplotlib, Agg backend), one PNG per entry of the figure registry.

The registry (:mod:`westbench.metrics.figure_list`) lists every figure: its name, label, function, scope,
width and caption. Modules, by what they draw:

- :mod:`~westbench.metrics.figures.distributions`: ``tic_densities_1d`` (TIC 0..3 densities, ground truth
  against the model), ``tic_densities_2d`` (TIC 0/1, 1/2, 2/3 free energies of the ground truth, model contours
  on top), ``structure_distributions`` (radius of gyration, C-alpha bond, angle and dihedral distributions).
- :mod:`~westbench.metrics.figures.coverage`: ``tic01_by_iteration`` (model points in TIC 0/1, 1/2 and 2/3
  coloured by WE iteration over the ground truth; for the ground truth itself, by run and by TIC 3).
- :mod:`~westbench.metrics.figures.msm`: ``msm_reweighting`` (the suite's grid MSM over TIC 0/1: log
  transition matrix, MSM against raw weight per cell, the TIC 0/1 free energies of the two weightings).
- :mod:`~westbench.metrics.figures.structure`: ``contact_map_difference`` (model minus ground-truth mean
  C-alpha distance) and ``macrostates`` (ground truth and model in TIC 0/1 by ground-truth macrostate).
- :mod:`~westbench.metrics.figures.cross_engine`: per protein, ``engines_tic01`` and ``coverage_vs_compute``.
- :mod:`~westbench.metrics.figures.free_energy`: the one free-energy surface and contour helper (also the
  report's); :mod:`~westbench.metrics.figures.base`: colours, subsample, placeholder;
  :mod:`~westbench.metrics.figures.data`: each job's figure data, computed once;
  :mod:`~westbench.metrics.figures.write`: :func:`write_metric_figures` and :func:`write_protein_figures`.

The names below are imported on first use, so that importing one module (the report's free-energy helper)
does not import every figure.

Examples
--------
>>> import numpy as np, tempfile, os
>>> from westbench.metrics.figures import tic_densities_1d
>>> rng = np.random.default_rng(0)
>>> tics = rng.normal(size=(500, 4))
>>> with tempfile.TemporaryDirectory() as folder:
...     tic_densities_1d(tics, None, tics + 0.5, None, os.path.join(folder, "d.png"))
...     os.path.getsize(os.path.join(folder, "d.png")) > 0
True
"""

from __future__ import annotations

import importlib

from westbench.metrics.figure_list import FIGURES  # noqa: F401  (the registry's per-engine {name: label})

_WHERE = {
    "write_metric_figures": "write",
    "write_protein_figures": "write",
    "EngineFigureData": "data",
    "ProteinFigureData": "data",
    "placeholder": "base",
    "draw_or_explain": "base",
    "subsample": "base",
    "TIC_PAIRS": "base",
    "GROUNDTRUTH_COLOUR": "base",
    "MODEL_COLOUR": "base",
    "free_energy": "free_energy",
    "surface": "free_energy",
    "draw_surface": "free_energy",
    "draw_contours": "free_energy",
    "density_1d": "distributions",
    "tic_densities_1d": "distributions",
    "tic_densities_2d": "distributions",
    "structure_distributions": "distributions",
    "STRUCTURE_PANELS": "distributions",
    "tic01_by_iteration": "coverage",
    "msm_reweighting": "msm",
    "MAX_MATRIX_CELLS": "msm",
    "contact_map_difference": "structure",
    "macrostate_scatter": "structure",
    "engines_tic01": "cross_engine",
    "coverage_vs_compute": "cross_engine",
}
__all__ = ["FIGURES", *_WHERE]


def __getattr__(name: str):
    if name in _WHERE:
        return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
