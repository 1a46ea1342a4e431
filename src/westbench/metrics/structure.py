"""C-alpha structure metrics: bonds outside their range, mean-distance contact maps (geometry: westbench.ca_geometry).

Examples
--------
>>> import numpy as np
>>> ca = np.zeros((1, 4, 3), dtype=np.float32); ca[0, :, 0] = [0.0, 0.38, 0.76, 1.14]
>>> share_of_bonds_outside(ca)
0.0
"""

from __future__ import annotations

import numpy as np

from westbench.ca_geometry import bond_lengths
from westbench.features import pair_indices, pairwise_distances
from westbench.metrics.weighted import weighted_mean

BOND_RANGE_NM = (0.35, 0.45)  # consecutive C-alpha distance outside it: explosion or implosion


def share_of_bonds_outside(ca: np.ndarray, weights=None, bounds=BOND_RANGE_NM, bonds=None) -> float:
    """Weighted share of C-alpha bonds outside ``bounds`` (nm): the explosion/implosion signal.

    ``bonds`` (the :func:`bond_lengths` of ``ca``) may be passed when already computed.
    """
    bonds = bond_lengths(ca) if bonds is None else bonds
    outside = ((bonds < bounds[0]) | (bonds > bounds[1])).mean(axis=1)
    return float(weighted_mean(outside, weights))


def distance_map(pair_values: np.ndarray) -> np.ndarray:
    """The symmetric (n, n) matrix, zero diagonal, of per-pair values.

    The values are in :func:`~westbench.features.pair_indices` order.
    """
    n = int(round((1 + np.sqrt(1 + 8 * len(pair_values))) / 2))
    matrix = np.zeros((n, n))
    pairs = pair_indices(n)
    matrix[pairs[:, 0], pairs[:, 1]] = pair_values
    matrix[pairs[:, 1], pairs[:, 0]] = pair_values
    return matrix


def mean_distance_map(ca: np.ndarray, weights=None) -> np.ndarray:
    """Weighted mean C-alpha distance of every residue pair, (n, n) symmetric, Angstrom, zero diagonal."""
    return distance_map(weighted_mean(pairwise_distances(ca), weights) * 10.0)


def contact_map_difference(reference_ca, model_ca, reference_weights=None, model_weights=None) -> np.ndarray:
    """Model minus ground truth mean C-alpha distance per pair (Angstrom).

    Positive: the model keeps the pair farther apart.
    """
    return mean_distance_map(model_ca, model_weights) - mean_distance_map(reference_ca, reference_weights)
