"""What an adversary does to a frame set without changing what it holds, or to make it worse: the transformations
the scoring contract (:mod:`westbench.metrics.contract`) scores again.

Transformations that carry no information (the scoring contract's invariances: every number must stay):

- :func:`permuted`: the same rows in another order;
- :func:`duplicated`: every row written twice;
- :func:`written_twice`: some rows written twice in their own piece (same piece, same time);
- :func:`copied_to_new_pieces`: every frame also written as a copy in a new piece, the weights halved;
- :func:`piece_duplicated`: whole pieces written again as new pieces, with their weights;
- :func:`file_duplicated`: the whole file written again (pieces renumbered, as an import of the same file twice);
- :func:`scaled_weights`: every weight times a constant;
- :func:`with_zero_weight_frames`: frames of weight 0 added, as new pieces and between the saved frames of pieces;
- :func:`rigidly_moved`: every frame rotated and translated (float64).

And one that makes a model worse:

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
>>> copies = copied_to_new_pieces(frames)
>>> len(copies["ca"]), float(copies["weight"].sum()), sorted(set(copies["traj"].tolist()))
(8, 1.0, [0, 1, 2, 3, 4, 5, 6, 7])
>>> moved = rigidly_moved(frames, 1)
>>> bool(np.allclose(np.linalg.norm(moved["ca"][:, 0] - moved["ca"][:, 1], axis=-1), 0.0))
True
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from westbench.io.frames import Frames

#: Where far-away mass is put: every TIC, and the radius of gyration of the scaled chain (Angstrom).
FAR_TIC = 50.0
FAR_RG_ANGSTROM = 100.0


def _like(frames: Mapping, data: Mapping) -> dict:
    """``data`` with the attributes of ``frames`` (a frames file's, :class:`westbench.io.frames.Frames`), if any:
    a transformation changes rows, never what the file says of itself (the TICA's caveats, the import's source)."""
    if not hasattr(frames, "attrs"):
        return dict(data)
    out = Frames(data)
    out.attrs = dict(frames.attrs)
    return out


def _rows(frames: Mapping, index: np.ndarray) -> dict:
    n = len(frames["ca"])
    return _like(
        frames,
        {
            key: (np.asarray(value)[index] if np.ndim(value) and len(value) == n else value)
            for key, value in frames.items()
        },
    )


def permuted(frames: Mapping, seed: int = 0) -> dict:
    """The same frames in a seeded random row order."""
    return _rows(frames, np.random.default_rng(seed).permutation(len(frames["ca"])))


def duplicated(frames: Mapping) -> dict:
    """Every row written twice (the copy after the original block)."""
    return _rows(frames, np.tile(np.arange(len(frames["ca"])), 2))


def _joined(frames: Mapping, extra: Mapping) -> dict:
    """``frames`` followed by the rows of ``extra`` (every per-row dataset of ``frames``; dtypes kept)."""
    n = len(frames["ca"])
    joined = {}
    for key, value in frames.items():
        if np.ndim(value) and len(value) == n:
            joined[key] = np.concatenate([np.asarray(value), np.asarray(extra[key], dtype=np.asarray(value).dtype)])
        else:
            joined[key] = value
    return _like(frames, joined)


def _new_ids(frames: Mapping, copies: dict, k: int, ids: np.ndarray | None = None) -> dict:
    """``copies`` made new pieces: ``traj`` (and ``seg_id``) beyond every existing one, one per ``ids`` value."""
    ids = np.arange(k) if ids is None else np.unique(ids, return_inverse=True)[1]
    copies["traj"] = np.asarray(frames["traj"]).max() + 1 + ids
    if "seg_id" in frames:
        copies["seg_id"] = np.asarray(frames["seg_id"]).max() + 1 + ids
    return copies


def written_twice(frames: Mapping, share: float = 0.3, seed: int = 0) -> dict:
    """A seeded ``share`` of the rows (at least one) written a second time, in the same piece at the same time, with
    the same weight."""
    n = len(frames["ca"])
    chosen = np.random.default_rng(seed).choice(n, size=max(1, int(round(share * n))), replace=False)
    return _rows(frames, np.concatenate([np.arange(n), chosen]))


def copied_to_new_pieces(frames: Mapping, per_frame: bool = False) -> dict:
    """Every frame also written as a copy in a new piece, the weights of original and copy halved (the total
    weight kept). The copies of a piece form one new piece, or with ``per_frame`` each copy is a piece of its own."""
    n = len(frames["ca"])
    weight = np.asarray(frames["weight"], dtype=np.float64) / 2.0
    copies = _rows(frames, np.arange(n))
    copies["weight"] = weight
    copies = _new_ids(frames, copies, n, None if per_frame else np.asarray(frames["traj"]))
    return _joined(_like(frames, {**frames, "weight": weight}), copies)


def piece_duplicated(frames: Mapping, pieces: int = 1, seed: int = 0) -> dict:
    """``pieces`` seeded pieces (``traj``) written again as new pieces, every row with its weight."""
    traj = np.asarray(frames["traj"])
    levels = np.unique(traj)
    chosen = np.random.default_rng(seed).choice(levels, size=min(pieces, len(levels)), replace=False)
    rows = np.flatnonzero(np.isin(traj, chosen))
    return _joined(frames, _new_ids(frames, _rows(frames, rows), len(rows), traj[rows]))


def file_duplicated(frames: Mapping) -> dict:
    """The whole file written again after itself, its pieces (and WE replicas) renumbered: one file imported twice."""
    n = len(frames["ca"])
    copies = _new_ids(frames, _rows(frames, np.arange(n)), n, np.asarray(frames["traj"]))
    if "replica" in frames:
        copies["replica"] = np.asarray(frames["replica"]) + np.asarray(frames["replica"]).max() + 1
    return _joined(frames, copies)


def scaled_weights(frames: Mapping, factor: float = 1000.0) -> dict:
    """Every weight times ``factor``."""
    return _like(frames, {**frames, "weight": np.asarray(frames["weight"], dtype=np.float64) * factor})


def with_zero_weight_frames(frames: Mapping, share: float = 0.2, seed: int = 0) -> dict:
    """About ``share`` n frames (at least two) of weight 0 added: new conformations (copies of seeded frames, the
    chain stretched and every TIC moved far), half as pieces of their own, half inside existing pieces between
    two saved frames (half a step after a frame, same iteration)."""
    n = len(frames["ca"])
    rng = np.random.default_rng(seed)
    k = max(2, int(round(share * n)))
    source = rng.choice(n, size=k, replace=k > n)
    added = _rows(frames, source)
    ca = np.asarray(added["ca"], dtype=np.float64)
    added["ca"] = ca * 3.0 + rng.normal(0.0, 0.5, size=ca.shape)
    if "tics" in frames:
        added["tics"] = np.asarray(added["tics"], dtype=np.float64) + rng.choice(
            [-40.0, 40.0], size=np.shape(added["tics"])
        )
    added["weight"] = np.zeros(k)
    if "ok" in frames:
        added["ok"] = np.ones(k)
    half = k // 2  # the first half: pieces of their own
    separate = _new_ids(frames, {}, half)
    for key, ids in separate.items():
        added[key] = np.concatenate([ids, np.asarray(added[key])[half:]])
    if "time_ps" in frames:
        time = np.asarray(frames["time_ps"], dtype=np.float64)
        step = float(np.min(np.diff(np.unique(time)))) if len(np.unique(time)) > 1 else 1.0
        added["time_ps"] = np.asarray(added["time_ps"], dtype=np.float64) + 0.5 * step
    return _joined(frames, added)


def rigidly_moved(frames: Mapping, seed: int = 0, per_frame: bool = False, scale_nm: float = 5.0) -> dict:
    """Every frame's C-alpha chain rotated (a proper rotation: no mirror image) and translated by up to ``scale_nm``,
    in float64: one motion for every frame, or with ``per_frame`` one for each distinct conformation (copies of a
    frame move together and stay copies). Element by element, so identical rows stay bitwise identical."""
    from scipy.spatial.transform import Rotation

    from westbench.io.canonical import conformations

    ca = np.asarray(frames["ca"], dtype=np.float64)
    n = len(ca)
    which = np.zeros(n, dtype=np.int64)
    if per_frame and n:
        parts = [np.asarray(frames[k]).reshape(n, -1) for k in ("ca", "tics") if k in frames]
        which = conformations(parts)
    count = int(which.max()) + 1 if n else 1
    rotation = Rotation.random(count, random_state=seed).as_matrix()[which]  # (n, 3, 3)
    shift = np.random.default_rng(seed).uniform(-scale_nm, scale_nm, size=(count, 3))[which]
    moved = np.empty_like(ca)
    for i in range(3):
        moved[..., i] = (
            rotation[:, None, i, 0] * ca[..., 0]
            + rotation[:, None, i, 1] * ca[..., 1]
            + rotation[:, None, i, 2] * ca[..., 2]
        ) + shift[:, None, i]
    return _like(frames, {**frames, "ca": moved})


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
    return _joined(frames, far)
