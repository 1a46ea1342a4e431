"""TICA on C-alpha distances: fit with deeptime, store portably, project anything.

Modules: :mod:`~westbench.tica.pair_selection` (:class:`PairFeatures`, which C-alpha pairs: all for small proteins, a
reduced set for large ones; :func:`choose_features`), :mod:`~westbench.tica.model` (:class:`TicaModel`, the stored
features and affine map, save/load/project), :mod:`~westbench.tica.fitting` (:func:`fit_tica`, streaming, on any
trajectories; :func:`fit_groundtruth` on a protein's ground-truth runs, with the memory estimate),
:mod:`~westbench.tica.wellposed` (is a fit well posed: errors and caveats), :mod:`~westbench.tica.memory` (the fit's
peak memory, estimated before fitting), :mod:`~westbench.tica.decomposition` (deeptime's TICA on LAPACK's
eigensolver).

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
    "PairFeatures": "westbench.tica.pair_selection",
    "choose_features": "westbench.tica.pair_selection",
    "fit_tica": "westbench.tica.fitting",
    "fit_groundtruth": "westbench.tica.fitting",
    "fit_memory_bytes": "westbench.tica.memory",
}
__all__ = list(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
