"""C-alpha geometry every stage shares: which atoms are the beads, their positions and distances, the shape
measures of a chain, and the coverage grid of the TIC 0/1 plane.

:mod:`~westbench.geometry.features` (atom selection, positions, pairwise distances),
:mod:`~westbench.geometry.ca_geometry` (radius of gyration, bonds, angles, dihedrals),
:mod:`~westbench.geometry.coverage_grid` (the one grid of "% explored") and :mod:`~westbench.geometry.sanity`
(is an engine's sample a protein, and the ground truth's: the checks before scoring, with
:mod:`~westbench.geometry.chain_checks` and :mod:`~westbench.geometry.ensemble_checks`). The geometry layer imports
only the base (config, errors): sampling, training and analysis all use it.
"""

from westbench._exports import lazy_exports

#: Each public name and the module it is defined in (loaded on first use).
_NAMES = {
    "ca_atom_indices": "westbench.geometry.features",
    "ca_positions": "westbench.geometry.features",
    "ca_trajectory": "westbench.geometry.features",
    "pair_indices": "westbench.geometry.features",
    "pairwise_distances": "westbench.geometry.features",
    "mean_pairwise_distances": "westbench.geometry.features",
    "radius_of_gyration": "westbench.geometry.ca_geometry",
    "bond_lengths": "westbench.geometry.ca_geometry",
    "bond_angles": "westbench.geometry.ca_geometry",
    "dihedrals": "westbench.geometry.ca_geometry",
    "CoverageGrid": "westbench.geometry.coverage_grid",
    "frames_per_chunk": "westbench.geometry.features",
    "engine_sanity": "westbench.geometry.sanity",
    "SanityReport": "westbench.geometry.sanity",
}
__all__ = list(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
