"""What an adversary does to a frame set without changing what it holds, or to make it worse: the transformations
the scoring contract (:mod:`westbench.metrics.contract`) scores again.

- :func:`permuted`: the same rows in another order;
- :func:`duplicated`: every row written twice;
- :func:`with_far_mass`: a share of the weight moved to copies placed far away.

Examples
--------
>>> import numpy as np
>>> frames = {"ca": np.zeros((4, 3, 3)), "tics": np.zeros((4, 2)), "weight": np.full(4, 0.25),
...           "traj": np.arange(4), "time_ps": np.zeros(4)}
>>> len(duplicated(frames)["ca"]), sorted(permuted(frames, 1)["traj"].tolist())
(8, [0, 1, 2, 3])
>>> far = with_far_mass(frames, 0.2)
>>> round(float(far["weight"][4:].sum() / far["weight"].sum()), 6), float(far["tics"][4:].max())
(0.2, 50.0)
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

#: Where far-away mass is put: every TIC, and the radius of gyration of the scaled chain (Angstrom).
FAR_TIC = 50.0
FAR_RG_ANGSTROM = 100.0


def _rows(frames: Mapping, index: np.ndarray) -> dict:
    n = len(frames["ca"])
    return {
        key: (np.asarray(value)[index] if np.ndim(value) and len(value) == n else value)
        for key, value in frames.items()
    }


def permuted(frames: Mapping, seed: int = 0) -> dict:
    """The same frames in a seeded random row order."""
    return _rows(frames, np.random.default_rng(seed).permutation(len(frames["ca"])))


def duplicated(frames: Mapping) -> dict:
    """Every row written twice (the copy after the original block)."""
    return _rows(frames, np.tile(np.arange(len(frames["ca"])), 2))


def with_far_mass(
    frames: Mapping, share: float, seed: int = 0, tic: float = FAR_TIC, rg_angstrom: float = FAR_RG_ANGSTROM
) -> dict:
    """The frames with ``share`` of their weight (and about that share of their rows) on copies placed far away.

    ``k`` = max(1, round(share n / (1 - share))) frames, drawn with a seed, are copied; each copy's chain is
    scaled about its centre to a radius of gyration of ``rg_angstrom``, every TIC set to ``tic``, and it becomes
    a piece of its own (a new ``traj`` and ``seg_id``) in the last iteration, so no leading-iteration discard
    drops it. The copies' weights sum to ``share`` of the new total.
    """
    n = len(frames["ca"])
    k = max(1, int(round(share * n / (1.0 - share))))
    source = np.random.default_rng(seed).choice(n, size=k, replace=k > n)
    far = _rows(frames, source)
    ca = np.asarray(far["ca"], dtype=np.float64)
    centred = ca - ca.mean(axis=1, keepdims=True)
    rg = np.sqrt((centred**2).sum(axis=-1).mean(axis=1))[:, None, None]
    far["ca"] = (centred * (rg_angstrom / 10.0) / np.where(rg > 0, rg, 1.0)).astype(np.asarray(frames["ca"]).dtype)
    far["tics"] = np.full(np.shape(far["tics"]), tic)
    weight = np.asarray(frames["weight"], dtype=np.float64)
    far["weight"] = np.full(k, share * weight.sum() / ((1.0 - share) * k))
    traj = np.asarray(frames["traj"])
    far["traj"] = traj.max() + 1 + np.arange(k)
    if "seg_id" in frames:
        far["seg_id"] = np.asarray(frames["seg_id"]).max() + 1 + np.arange(k)
    if "iteration" in frames:
        far["iteration"] = np.full(k, np.asarray(frames["iteration"]).max())
    if "ok" in frames:
        far["ok"] = np.ones(k, dtype=np.asarray(frames["ok"]).dtype)
    joined = {}
    for key, value in frames.items():
        if np.ndim(value) and len(value) == n:
            joined[key] = np.concatenate([np.asarray(value), np.asarray(far[key], dtype=np.asarray(value).dtype)])
        else:
            joined[key] = value
    return joined
