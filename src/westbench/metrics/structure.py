"""C-alpha structure metrics: bonds outside their range, mean-distance contact maps (geometry:
westbench.geometry.ca_geometry).

Examples
--------
>>> import numpy as np
>>> ca = np.zeros((1, 4, 3), dtype=np.float32); ca[0, :, 0] = [0.0, 0.38, 0.76, 1.14]
>>> share_of_bonds_outside(ca)
0.0
"""

from __future__ import annotations

import numpy as np

from westbench.geometry.ca_geometry import bond_lengths
from westbench.geometry.features import pair_indices
from westbench.metrics.weighted import normalized, weighted_mean

BOND_RANGE_NM = (0.35, 0.45)
#: Pairs whose distance distributions the contact map's W1 compares, at most: a 250-residue protein has 31,125, and
#: each costs a sort of every frame; beyond this a seeded sample of pairs estimates their mean W1.
MAX_SCORED_PAIRS = 4_000  # consecutive C-alpha distance outside it: explosion or implosion


def share_of_bonds_outside(ca: np.ndarray, weights=None, bounds=BOND_RANGE_NM, bonds=None) -> float:
    """Weighted share of C-alpha bonds outside ``bounds`` (nm): the explosion/implosion signal.

    ``bonds`` (the :func:`bond_lengths` of ``ca``) may be passed when already computed.
    """
    bonds = bond_lengths(ca) if bonds is None else bonds
    outside = ((bonds < bounds[0]) | (bonds > bounds[1])).mean(axis=1)
    return float(weighted_mean(outside, weights))


def distance_map(pair_values: np.ndarray) -> np.ndarray:
    """The symmetric (n, n) matrix, zero diagonal, of per-pair values.

    The values are in :func:`~westbench.geometry.features.pair_indices` order.
    """
    n = int(round((1 + np.sqrt(1 + 8 * len(pair_values))) / 2))
    matrix = np.zeros((n, n))
    pairs = pair_indices(n)
    matrix[pairs[:, 0], pairs[:, 1]] = pair_values
    matrix[pairs[:, 1], pairs[:, 0]] = pair_values
    return matrix


def mean_distance_map(ca: np.ndarray, weights=None, chunk_bytes: int = 64 * 2**20) -> np.ndarray:
    """Weighted mean C-alpha distance of every residue pair, (n, n) symmetric, Angstrom, zero diagonal.

    Distances in float64 (:func:`pair_distances`), frames taken in chunks of about ``chunk_bytes`` of distances:
    float32 distances (mdtraj's) moved the map by 1e-6 Angstrom when every frame was rotated, its sixth decimal.
    """
    ca = np.asarray(ca)
    n = ca.shape[1]
    pairs = pair_indices(n)
    w = np.full(len(ca), 1.0 / max(len(ca), 1)) if weights is None else normalized(weights)
    total = np.zeros(len(pairs))
    step = max(1, int(chunk_bytes) // (8 * max(1, len(pairs))))
    for start in range(0, len(ca), step):
        total += w[start : start + step] @ pair_distances(ca[start : start + step], pairs)
    return distance_map(total * 10.0)


class PairDistanceW1:
    """W1 (Angstrom) between the ground truth's and a model's distribution of every C-alpha pair distance, under
    changing model weights: the contact map's score.

    The published map shows the difference of mean distances per pair (:func:`contact_map_difference`); a mean
    is no divergence (far-away frames can pull a too-compact model's means onto the ground truth's), so the
    score summarizing it is the mean over pairs of the W1 of each pair's distance distribution, which bounds
    the |difference of means| of that pair from above, is 0 for identical samples and grows with mass moved
    far away. Pairs are taken in chunks (memory O(frames x ``chunk``)); the sort orders are kept between calls
    while they fit in ``cache_elements``. Beyond ``max_pairs`` (:data:`MAX_SCORED_PAIRS`) pairs, a sample of
    them drawn with ``seed`` stands for all.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> a = np.cumsum(rng.normal(0, 0.2, (50, 4, 3)), axis=1)
    >>> score = PairDistanceW1(a, a)
    >>> float(score(None, None).max())
    0.0
    >>> far = a * 10.0
    >>> bool(PairDistanceW1(a, np.concatenate([a, far]))(None, None).min() > 0)
    True
    """

    def __init__(
        self,
        reference_ca: np.ndarray,
        model_ca: np.ndarray,
        chunk_elements: int = 20_000_000,
        cache_elements: int = 100_000_000,
        max_pairs: int | None = None,
        seed: int = 0,
    ):
        self.reference_ca, self.model_ca = np.asarray(reference_ca), np.asarray(model_ca)
        n_residues = self.reference_ca.shape[1]
        self.pairs = pair_indices(n_residues)
        max_pairs = MAX_SCORED_PAIRS if max_pairs is None else max_pairs
        if len(self.pairs) > max_pairs:  # a large protein: a seeded sample of its pairs estimates their mean
            keep = np.sort(np.random.default_rng(seed).choice(len(self.pairs), max_pairs, replace=False))
            self.pairs = self.pairs[keep]
        rows = len(self.reference_ca) + len(self.model_ca)
        self.chunk = max(1, chunk_elements // max(rows, 1))
        self._cache = {} if rows * len(self.pairs) <= cache_elements else None

    def _sorted(self, start: int):
        """(values, order) of one chunk of pairs, one row per pair: the pooled distances (Angstrom) sorted, and the
        frames in that order. Rows are contiguous and ties may fall in any order (a tie adds no width to W1): an
        unstable sort of contiguous rows is twice as fast as a stable one down strided columns."""
        if self._cache is not None and start in self._cache:
            return self._cache[start]
        pairs = self.pairs[start : start + self.chunk]
        values = np.ascontiguousarray(
            np.concatenate([pair_distances(self.reference_ca, pairs), pair_distances(self.model_ca, pairs)], axis=0).T,
            dtype=np.float64,
        )
        values *= 10.0
        order = np.argsort(values, axis=1)
        result = (np.take_along_axis(values, order, axis=1), order.astype(np.int32))
        if self._cache is not None:
            self._cache[start] = result
        return result

    def __call__(self, reference_weights, model_weights) -> np.ndarray:
        """Per pair (:func:`~westbench.geometry.features.pair_indices` order), the W1 in Angstrom."""
        n_ref, n_model = len(self.reference_ca), len(self.model_ca)
        a = np.full(n_ref, 1.0 / n_ref) if reference_weights is None else normalized(reference_weights)
        b = np.full(n_model, 1.0 / n_model) if model_weights is None else normalized(model_weights)
        signed = np.concatenate([a, -b])
        out = np.empty(len(self.pairs))
        for start in range(0, len(self.pairs), self.chunk):
            values, order = self._sorted(start)
            difference = np.cumsum(signed[order], axis=1)  # F_reference - F_model after each sorted value
            out[start : start + len(values)] = np.sum(np.abs(difference[:, :-1]) * np.diff(values, axis=1), axis=1)
        return out


def pair_distances(ca: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """(n_frames, n_pairs) C-alpha distances (nm) of the given residue pairs.

    One coordinate at a time, in place: six times faster than the norm of (frames, pairs, 3) differences on
    900,000 frames, and the same numbers.
    """
    ca = np.asarray(ca, dtype=np.float64)
    out = np.zeros((len(ca), len(pairs)))
    for axis in range(3):
        coordinate = np.ascontiguousarray(ca[:, :, axis])
        difference = coordinate[:, pairs[:, 0]]
        difference -= coordinate[:, pairs[:, 1]]
        difference *= difference
        out += difference
    return np.sqrt(out, out=out)


def contact_map_difference(reference_ca, model_ca, reference_weights=None, model_weights=None) -> np.ndarray:
    """Model minus ground truth mean C-alpha distance per pair (Angstrom).

    Positive: the model keeps the pair farther apart.
    """
    return mean_distance_map(model_ca, model_weights) - mean_distance_map(reference_ca, reference_weights)
