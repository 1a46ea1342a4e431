"""deeptime's TICA decomposed with LAPACK's symmetric eigensolver: the same result, multi-threaded and fast.

deeptime 0.5's ``eig_corr`` whitens C00 with its own QR-based eigensolver, single-threaded Cython: 15 s against
:func:`scipy.linalg.eigh`'s 3 s for 1,000 features (measured here under load), cubic in the features, so
minutes for the thousands of features of a large protein. :class:`LapackTICA` is deeptime's ``TICA`` with
:func:`eig_corr`, deeptime's algorithm on ``eigh``: equal to deeptime's to 1e-10 (tests/unit/tica/test_fitting.py).

Examples
--------
>>> import numpy as np
>>> x = np.random.default_rng(0).normal(size=(500, 4)).cumsum(axis=0)
>>> model = LapackTICA(lagtime=1, dim=2).fit([x]).fetch_model()
>>> int(model.output_dimension), bool(0 < model.singular_values[0] < 1)
(2, True)
"""

from __future__ import annotations

import numpy as np

import westbench.runtime.deeptime_without_torch  # noqa: F401  (before deeptime: loads it without torch)

# isort: split
from deeptime.decomposition import TICA

from westbench.errors import WestbenchError


class LapackTICA(TICA):
    """deeptime's TICA, decomposed with LAPACK's symmetric eigensolver (:func:`scipy.linalg.eigh`).

    deeptime 0.5's ``eig_corr`` whitens C00 with its own QR-based eigensolver, single-threaded Cython: 15 s against
    eigh's 3 s for 1,000 features (measured), cubic in the features, so minutes for thousands. This is the same
    computation (:func:`eig_corr`: truncation at ``epsilon``, order by magnitude, canonical signs) and the same
    kinetic-map scaling; everything else (covariances, model, transform) is deeptime's.
    """

    @staticmethod
    def _decomposition(covariances, epsilon, scaling, dim, var_cutoff):
        if scaling not in (None, "km", "kinetic_map"):
            raise WestbenchError(f"TICA scaling {scaling!r} is not supported; westbench uses the kinetic map")
        eigenvalues, eigenvectors, rank = eig_corr(covariances.cov_00, covariances.cov_0t, epsilon)
        if scaling is not None:
            eigenvectors *= eigenvalues[None, :]
        return TICA._DiagonalizationResults(
            rank0=rank,
            rankt=rank,
            singular_values=eigenvalues,
            left_singular_vecs=eigenvectors,
            right_singular_vecs=eigenvectors,
        )


def eig_corr(c00: np.ndarray, c0t: np.ndarray, epsilon: float) -> tuple[np.ndarray, np.ndarray, int]:
    """deeptime.numeric.eig_corr(c00, c0t, epsilon, canonical_signs=True, return_rank=True), with scipy's eigh.

    Solves ``c0t r = l c00 r`` for symmetric ``c0t``: whitens with the eigenvectors of ``c00`` whose eigenvalues
    exceed ``epsilon`` (and any negative one's magnitude), then diagonalizes the whitened ``c0t``; eigenvalues by
    descending magnitude, each eigenvector's largest entry positive.
    """
    from deeptime.numeric import ZeroRankError
    from scipy.linalg import eigh

    values, vectors = eigh(c00)
    order = np.argsort(np.abs(values))[::-1]
    values, vectors = values[order], vectors[:, order]
    if values.min() < 0:
        epsilon = max(epsilon, -values.min() + 1e-16)
    rank = int(np.sum(np.abs(values) >= epsilon))
    if rank == 0:
        raise ZeroRankError("All input features are constant in all time steps: no dimension is left")
    vectors = vectors[:, :rank]
    vectors *= np.sign(vectors[np.argmax(np.abs(vectors), axis=0), np.arange(rank)])
    whitening = vectors / np.sqrt(values[:rank])
    del vectors
    eigenvalues, rotation = eigh(whitening.T @ c0t @ whitening)
    order = np.argsort(np.abs(eigenvalues))[::-1]
    eigenvalues, rotation = eigenvalues[order], rotation[:, order]
    eigenvectors = whitening @ rotation
    eigenvectors *= np.sign(eigenvectors[np.argmax(np.abs(eigenvectors), axis=0), np.arange(rank)])
    return eigenvalues, eigenvectors, rank
