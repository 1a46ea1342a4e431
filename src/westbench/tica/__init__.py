"""TICA on C-alpha distances: fit with deeptime, store portably, project anything.

Modules: :mod:`~westbench.tica.model` (:class:`TicaModel`, the stored affine map, save/load/transform),
:mod:`~westbench.tica.fitting` (:func:`fit_tica` on any trajectories, :func:`fit_groundtruth` on a
protein's ground-truth runs).
"""

from westbench.tica.fitting import fit_groundtruth, fit_tica
from westbench.tica.model import FEATURE_CA_DISTANCES, FORMAT_VERSION, TicaModel

__all__ = ["TicaModel", "fit_tica", "fit_groundtruth", "FEATURE_CA_DISTANCES", "FORMAT_VERSION"]
