"""TICA on C-alpha distances: fit with deeptime, store portably, project anything.

Modules: :mod:`~westbench.tica.model` (:class:`TicaModel`, the stored affine map, save/load/transform),
:mod:`~westbench.tica.fitting` (:func:`fit_tica` on any trajectories, :func:`fit_groundtruth` on a
protein's ground-truth runs).

The names load their module on first use: projecting with a stored model (WE progress coordinates,
exports) never imports deeptime (and with it torch and scikit-learn, seconds of every job's start-up);
only fitting does.
"""

from westbench._exports import lazy_exports

#: Each public name and the module it is defined in (loaded on first use).
_NAMES = {
    "TicaModel": "westbench.tica.model",
    "FEATURE_CA_DISTANCES": "westbench.tica.model",
    "FORMAT_VERSION": "westbench.tica.model",
    "fit_tica": "westbench.tica.fitting",
    "fit_groundtruth": "westbench.tica.fitting",
}
__all__ = ["TicaModel", "fit_tica", "fit_groundtruth", "FEATURE_CA_DISTANCES", "FORMAT_VERSION"]
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
