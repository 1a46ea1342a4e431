"""The peak memory of a streaming TICA fit, estimated before fitting, and the refusal above ``tica.memory_gb``.

The streaming fit (:func:`westbench.tica.fit_tica`) holds a few features^2 matrices (deeptime's partial sums,
a chunk's products, then the decomposition), a chunk of features, the C-alpha frames of the runs and the
process itself; never frames x features.

Examples
--------
>>> round(fit_memory_bytes(2000) / 2**30, 2)                    # GiB for 2,000 features
0.78
>>> round(fit_memory_bytes(31125) / 2**30)                      # all pairs of 250 residues
75
"""

from __future__ import annotations

import numpy as np

from westbench.errors import WestbenchError
from westbench.tica.pair_selection import PairFeatures

#: Frames whose features are computed and added to the covariances at once.
CHUNK_FRAMES = 2000
#: Partial covariance sums deeptime keeps before merging them (its ``ncov``; TICA's own default keeps one per
#: doubling of the data: ~log2(chunks) matrices of features^2). Two merge every new chunk at once.
MOMENTS_KEPT = 2
#: features^2 float64 matrices alive at the peak: the kept sums (2 x MOMENTS_KEPT: C00 and C0t) and a chunk's
#: products while it is added, then the decomposition (covariances, whitening, eigenvectors). Measured: 0.49 GB
#: above the start for 2,500 features (about 8 matrices and the chunk); this estimate says 0.69.
COVARIANCE_MATRICES = 2 * MOMENTS_KEPT + 6
#: frames x features float64 arrays alive per chunk: the features, deeptime's centred copies of X and Y, products.
CHUNK_COPIES = 6
#: The process besides (the interpreter, numpy, scipy, deeptime, mdtraj, h5py): 0.20 GB measured after its imports.
PROCESS_BYTES = int(0.3 * 2**30)


def fit_memory_bytes(n_features: int, chunk_frames: int = CHUNK_FRAMES, data_bytes: int = 0) -> int:
    """Peak memory (bytes) of the process of a streaming fit on ``n_features``, with ``data_bytes`` of frames held.

    An upper estimate (benchmarks/tica_large.json measures the fit against it).
    """
    matrices = COVARIANCE_MATRICES * 8 * n_features**2
    return int(matrices + CHUNK_COPIES * 8 * chunk_frames * n_features + data_bytes + PROCESS_BYTES)


def check_memory(features: PairFeatures, budget_gb: float, data_bytes: int, protein: str) -> int:
    """The fit's estimated memory, or an error naming the feature count and the keys to change."""
    need = fit_memory_bytes(features.n_features, data_bytes=data_bytes)
    if need > budget_gb * 2**30:
        fitting = _fitting_features(budget_gb, data_bytes)
        fewer = features.how_to_reduce(fitting)  # "" when even the fewest features a TICA needs do not fit
        raise WestbenchError(
            f"TICA of '{protein}' on {features.n_features:,} features ({features.reason}) needs about "
            f"{need / 2**30:.1f} GB, above tica.memory_gb {budget_gb:g}; {fitting:,} features fit. Fix: "
            + (f"{fewer}, or raise tica.memory_gb" if fewer else "raise tica.memory_gb")
        )
    return need


def _fitting_features(budget_gb: float, data_bytes: int) -> int:
    """The most features whose fit stays within ``budget_gb`` (for the message)."""
    a, b = COVARIANCE_MATRICES * 8, CHUNK_COPIES * 8 * CHUNK_FRAMES
    c = data_bytes + PROCESS_BYTES - budget_gb * 2**30
    return max(0, int((-b + np.sqrt(max(b * b - 4 * a * c, 0.0))) / (2 * a)))
