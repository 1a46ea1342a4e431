"""Progress coordinates computed from bead (C-alpha) frames.

Examples
--------
>>> import numpy as np
>>> pcoord = load_pcoord({"type": "position", "ndim": 2})
>>> pcoord(np.array([[[1.0, 2.0, 3.0]]])).tolist()
[[1.0, 2.0]]
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from westbench.tica import FEATURE_CA_DISTANCES, TicaModel


class TicaProgressCoordinate:
    """The first ``ndim`` TICs of the ground-truth TICA model, from the C-alpha pair distances it stores."""

    def __init__(self, model: str, protein: str, ndim: int = 2):
        self.model = TicaModel.load(model, protein=protein, feature=FEATURE_CA_DISTANCES)
        self.ndim = ndim

    def __call__(self, beads: np.ndarray) -> np.ndarray:
        return self.model.project(beads)[:, : self.ndim]


class PositionProgressCoordinate:
    """The first ``ndim`` Cartesian coordinates of the first bead (toy systems)."""

    def __init__(self, ndim: int = 2):
        self.ndim = ndim

    def __call__(self, beads: np.ndarray) -> np.ndarray:
        return np.asarray(beads)[:, 0, : self.ndim]


def load_pcoord(spec: Mapping):
    """Build a progress coordinate from ``{"type": "tica", "model": stem, "protein": id, "ndim": 2}``
    or ``{"type": "position", "ndim": 2}``."""
    spec = dict(spec)
    kind = spec.pop("type")
    if kind == "tica":
        return TicaProgressCoordinate(**spec)
    if kind == "position":
        return PositionProgressCoordinate(**spec)
    raise ValueError(f"unknown progress coordinate type {kind!r}")
