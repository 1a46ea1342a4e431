"""The noise floor of force matching, estimated from the training data.

Ground-truth C-alpha forces are the mean force (what a CG model can learn) plus a
fluctuating part from the degrees of freedom the CG model leaves out. No model can
push the force MSE below that part's variance. Two frames with nearly the same
C-alpha configuration share their mean force, so half the mean squared difference
of their forces estimates the floor (per force component, the loss's units); with
finite data the nearest neighbour is not identical, so the estimate is an upper
bound of the floor rather than the floor itself.

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> positions = np.repeat(rng.normal(size=(50, 5, 3)), 2, axis=0)          # each configuration twice
>>> forces = np.repeat(rng.normal(size=(50, 5, 3)), 2, axis=0) + rng.normal(0, 2.0, size=(100, 5, 3))
>>> round(force_noise_floor(positions, forces), 0)                          # noise variance 4
4.0
"""

from __future__ import annotations

import numpy as np


def force_noise_floor(positions: np.ndarray, forces: np.ndarray, max_frames: int = 2000, seed: int = 0) -> float:
    """Half the mean squared force difference between nearest-neighbour frames (pairwise-distance space)."""
    from scipy.spatial import cKDTree

    from westbench.geometry.features import pairwise_distances

    positions, forces = np.asarray(positions), np.asarray(forces, dtype=np.float64)
    if len(positions) < 2:
        return float("nan")
    keep = np.sort(np.random.default_rng(seed).choice(len(positions), min(max_frames, len(positions)), replace=False))
    features = pairwise_distances(positions[keep])
    _, nearest = cKDTree(features).query(features, k=2)
    own = np.arange(len(keep))
    neighbour = np.where(nearest[:, 0] == own, nearest[:, 1], nearest[:, 0])  # ties: the frame itself may be second
    difference = forces[keep] - forces[keep][neighbour]
    return float(0.5 * np.mean(difference**2))
