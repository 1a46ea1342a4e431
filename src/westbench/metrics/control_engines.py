"""Engines whose answer is known, made from ground-truth frames: the transformations behind the run's controls
(:mod:`westbench.metrics.controls`).

Each function takes a frame set (the frames contract, :mod:`westbench.io.frames`) and returns a new one; none
runs MD. Coordinates that change get their TICs projected again with the protein's TICA model
(:meth:`westbench.tica.model.TicaModel.project`), so every distribution of a control comes from the same
frames; transformations of the TICs themselves (:func:`shifted`, :func:`spread`) leave the coordinates, and so
the radius of gyration, bonds, angles and dihedrals, as they are.

- :func:`collapsed`: a few frames repeated (an engine stuck in a few conformations);
- :func:`mirrored`: x -> -x (the mirror-image protein: every distance, hence every TIC, is unchanged; only
  the dihedrals change sign);
- :func:`scaled`: coordinates times a factor (10: Angstrom read as nm);
- :func:`shifted`: one TIC moved by a constant;
- :func:`spread`: TIC deviations from their mean times a factor (broadened or narrowed);
- :func:`reweighted`: weights of a flatter (hotter) or sharper (colder) equilibrium along TIC 0/1,
  ``p(x) ** (T / T' - 1)`` from the frames' own density;
- :func:`without_state`: one metastable state's frames removed;
- :func:`noisy`: Gaussian noise on every coordinate (an engine too hot at the bond level);
- :func:`rigidly_moved`: a random rotation and translation of each frame (changes nothing a score sees).

Examples
--------
>>> import numpy as np
>>> from westbench.io.frames import Frames
>>> rng = np.random.default_rng(0)
>>> frames = Frames(ca=rng.normal(size=(6, 4, 3)).astype(np.float32), tics=rng.normal(size=(6, 2)),
...                 weight=np.full(6, 1 / 6), traj=np.repeat([0, 1], 3), time_ps=np.tile([0.0, 1.0, 2.0], 2),
...                 iteration=np.zeros(6, int))
>>> stuck = collapsed(frames, 1, seed=0)
>>> len(stuck["ca"]), len(np.unique(stuck["ca"], axis=0))  # as many rows, one conformation
(6, 1)
>>> shifted(frames, 0, 0.5)["tics"][:, 0].round(3).tolist() == (frames["tics"][:, 0] + 0.5).round(3).tolist()
True
>>> bool(np.isclose(spread(frames, 2.0)["tics"][:, 1].std(), 2 * frames["tics"][:, 1].std()))
True
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from westbench.errors import WestbenchError
from westbench.io.frames import Frames

#: The datasets a control keeps: what the metric suite reads (forces and energies of a changed frame are no
#: longer its own, and no score reads them).
KEPT = ("ca", "tics", "weight", "traj", "time_ps", "iteration")
#: Frames whose density a reweighting's kernel estimate is fitted on at most (a seeded subsample beyond it).
DENSITY_POINTS = 2000


def kept(frames: Mapping, rows: np.ndarray | None = None) -> Frames:
    """A new frame set with the datasets of :data:`KEPT` (the given ``rows`` only, when given) and the attributes.

    Examples
    --------
    >>> f = Frames(ca=np.zeros((3, 2, 3)), tics=np.zeros((3, 1)), weight=np.ones(3), traj=np.arange(3),
    ...            time_ps=np.zeros(3), iteration=np.zeros(3), forces=np.zeros((3, 2, 3)))
    >>> sorted(kept(f, np.array([True, False, True])))
    ['ca', 'iteration', 'tics', 'time_ps', 'traj', 'weight']
    """
    n = len(frames["ca"])
    if rows is None:
        rows = np.ones(n, dtype=bool)
    out = Frames({name: np.asarray(frames[name])[rows] for name in KEPT if name in frames})
    if "time_ps" not in out:  # frames made in memory: the rows of a piece in time order
        out["time_ps"] = np.arange(n, dtype=np.float64)[rows]
    if "iteration" not in out:
        out["iteration"] = np.zeros(n, dtype=np.int64)[rows]
    out.attrs = dict(getattr(frames, "attrs", {}))
    return out


def weighted_mean_sd(values: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per column of ``values`` (n, k): the weighted mean and standard deviation.

    Examples
    --------
    >>> mean, sd = weighted_mean_sd(np.array([[0.0], [2.0]]), np.array([1.0, 1.0]))
    >>> mean.tolist(), sd.tolist()
    ([1.0], [1.0])
    """
    values = np.asarray(values, dtype=np.float64).reshape(len(values), -1)
    w = np.asarray(weights, dtype=np.float64)
    w = w / w.sum()
    mean = w @ values
    return mean, np.sqrt(np.maximum(w @ (values - mean) ** 2, 0.0))


def reprojected(frames: Mapping, ca: np.ndarray, tica_model) -> Frames:
    """The frames with coordinates ``ca`` (nm) and their TICs projected again with ``tica_model``, in the frames'
    dtypes (so an unchanged chain gets the TICs it had)."""
    if tica_model is None:
        raise WestbenchError("a control that moves coordinates needs the protein's TICA model to project its TICs")
    out = kept(frames)
    out["ca"] = np.asarray(ca, dtype=np.asarray(frames["ca"]).dtype)
    tics = np.asarray(frames["tics"])
    projected = tica_model.project(out["ca"])
    columns = min(tics.shape[1], projected.shape[1])
    out["tics"] = projected[:, :columns].astype(tics.dtype)
    return out


def collapsed(frames: Mapping, k: int, seed: int, jitter_nm: float = 0.0, tica_model=None) -> Frames:
    """The frames' rows, times and weights, every row holding one of ``k`` of their conformations (seeded draw of
    distinct frames with weight), in turn: an engine stuck in a few conformations, sampled as long as the source.

    With ``jitter_nm`` > 0 each row's coordinates get Gaussian noise of that size and their TICs are projected again
    (``tica_model``): a stuck engine's frames are close, not bitwise copies, and copies are one conformation to the
    scoring (:mod:`westbench.io.canonical`), whose effective sample size then says the collapse instead of the
    divergences.
    """
    out = kept(frames)
    weight = np.asarray(out["weight"], dtype=np.float64)
    rng = np.random.default_rng(seed)
    candidates = np.flatnonzero(weight > 0) if np.any(weight > 0) else np.arange(len(weight))
    chosen = rng.choice(candidates, size=min(int(k), len(candidates)), replace=False)
    source = chosen[np.arange(len(weight)) % len(chosen)]
    out["ca"], out["tics"] = np.asarray(out["ca"])[source], np.asarray(out["tics"])[source]
    if jitter_nm > 0:
        ca = np.asarray(out["ca"], dtype=np.float64)
        return reprojected(out, ca + rng.normal(0.0, float(jitter_nm), size=ca.shape), tica_model)
    return out


def mirrored(frames: Mapping, tica_model) -> Frames:
    """The mirror image (x -> -x) of every frame, its TICs projected again (equal to the source's: distances are
    unchanged)."""
    ca = np.asarray(frames["ca"]) * np.array([-1.0, 1.0, 1.0], dtype=np.asarray(frames["ca"]).dtype)
    return reprojected(frames, ca, tica_model)


def scaled(frames: Mapping, factor: float, tica_model) -> Frames:
    """Every coordinate times ``factor`` (10: coordinates written in Angstrom and read as nm), TICs projected
    again."""
    return reprojected(frames, np.asarray(frames["ca"], dtype=np.float64) * float(factor), tica_model)


def shifted(frames: Mapping, column: int, delta: float) -> Frames:
    """TIC ``column`` of every frame plus ``delta`` (coordinates unchanged)."""
    out = kept(frames)
    tics = np.array(out["tics"], dtype=np.float64)
    tics[:, column] += float(delta)
    out["tics"] = tics.astype(np.asarray(frames["tics"]).dtype)
    return out


def spread(frames: Mapping, factor: float) -> Frames:
    """Every TIC's deviation from its weighted mean times ``factor`` (> 1 broadened, < 1 narrowed; coordinates
    unchanged)."""
    out = kept(frames)
    tics = np.asarray(out["tics"], dtype=np.float64)
    mean, _ = weighted_mean_sd(tics, out["weight"])
    out["tics"] = (mean + float(factor) * (tics - mean)).astype(np.asarray(frames["tics"]).dtype)
    return out


def tic01_density(frames: Mapping, seed: int, points: int = DENSITY_POINTS) -> np.ndarray:
    """The frames' own density along TIC 0/1 at every frame: a weighted Gaussian kernel estimate (scipy, Scott's
    bandwidth) fitted on at most ``points`` frames (a seeded draw beyond it); along the one of the two TICs that
    spreads when the other does not. Raises :class:`WestbenchError` when the frames have no spread to estimate it
    from."""
    from scipy.stats import gaussian_kde

    tics = np.asarray(frames["tics"], dtype=np.float64)[:, :2]
    weight = np.asarray(frames["weight"], dtype=np.float64)
    positive = np.flatnonzero(weight > 0)
    spreads = np.ptp(tics[positive], axis=0) if len(positive) else np.zeros(tics.shape[1])
    if not np.any(spreads > 0):
        raise WestbenchError("no density along TIC 0/1 to reweight: the frames do not spread along either")
    tics = tics[:, spreads > 0]
    if len(positive) > points:
        positive = np.sort(np.random.default_rng(seed).choice(positive, size=points, replace=False))
    try:
        kde = gaussian_kde(tics[positive].T, weights=weight[positive])
        density = np.concatenate([kde(tics[i : i + points].T) for i in range(0, len(tics), points)])
    except (np.linalg.LinAlgError, ValueError) as exc:
        raise WestbenchError(f"no density along TIC 0/1 to reweight: {exc}") from None
    if not np.all(np.isfinite(density)) or np.any(density[weight > 0] <= 0):
        raise WestbenchError("no density along TIC 0/1 to reweight: the kernel estimate is not positive")
    return density


def reweighted(frames: Mapping, temperature_ratio: float, seed: int) -> Frames:
    """The frames with the weights of another equilibrium along TIC 0/1: ``w p(x) ** (1 / ratio - 1)``, ``p`` the
    frames' own density (:func:`tic01_density`) and ``ratio`` = T' / T (> 1: flatter, a hotter equilibrium as the
    free-energy surface F = -kT ln p would give at T' if it did not change with temperature; < 1: sharper).

    The explicit-solvent energies cannot give it: they are the whole solvated system's, dominated by the water.
    """
    out = kept(frames)
    weight = np.asarray(out["weight"], dtype=np.float64)
    density = tic01_density(out, seed)
    factor = np.zeros_like(weight)
    live = weight > 0
    log_factor = (1.0 / float(temperature_ratio) - 1.0) * np.log(density[live])
    factor[live] = np.exp(log_factor - log_factor.max())
    new = weight * factor
    out["weight"] = new / new.sum()
    return out


def state_to_remove(shares: np.ndarray, target: float) -> int | None:
    """The state to remove: the one whose share is closest to ``target`` among those holding some weight and less
    than three quarters of it (removing more leaves too little to score); None when there is none.

    Examples
    --------
    >>> state_to_remove(np.array([0.05, 0.2, 0.75]), 0.25), state_to_remove(np.array([1.0]), 0.25)
    (1, None)
    """
    candidates = np.flatnonzero((shares > 0) & (shares < 0.75))
    if not len(candidates):
        return None
    return int(candidates[np.argmin(np.abs(shares[candidates] - target))])


def without_state(frames: Mapping, macrostate_model, share: float) -> tuple[Frames, str]:
    """The frames without one metastable state (an engine that never reaches it) and a description of what went.

    The state is a macrostate of the protein's model (:class:`westbench.metrics.metastable.MacrostateModel`)
    chosen by :func:`state_to_remove` with target ``share`` of the weight; without macrostates, the frames beyond
    the (1 - ``share``) weighted quantile of TIC 0 (the far end of the slowest coordinate).
    """
    weight = np.asarray(frames["weight"], dtype=np.float64)
    tics = np.asarray(frames["tics"], dtype=np.float64)
    total = weight.sum()
    if macrostate_model is not None and macrostate_model.n_macrostates > 0:
        labels = macrostate_model.assign(tics)
        n = macrostate_model.n_macrostates
        shares = np.bincount(np.where(labels >= 0, labels, n), weight, minlength=n + 1)[:n] / total
        state = state_to_remove(shares, share)
        if state is not None:
            remove = labels == state
            what = f"macrostate {state} of the protein's macrostate model ({100 * shares[state]:.1f} % of the weight)"
            return kept(frames, ~remove), what
    order = np.argsort(tics[:, 0], kind="stable")
    cumulative = np.cumsum(weight[order]) / total
    remove = np.zeros(len(weight), dtype=bool)
    remove[order[cumulative > 1.0 - float(share)]] = True
    if remove.all() or not remove.any():
        raise WestbenchError("no state to remove: the frames do not spread along TIC 0")
    what = (
        f"the far end of TIC 0 beyond its {100 * (1 - share):.0f} % weighted quantile "
        f"({100 * weight[remove].sum() / total:.1f} % of the weight; no macrostates)"
    )
    return kept(frames, ~remove), what


def noisy(frames: Mapping, sigma_nm: float, seed: int, tica_model) -> Frames:
    """Every coordinate plus Gaussian noise of ``sigma_nm`` (seeded), TICs projected again."""
    ca = np.asarray(frames["ca"], dtype=np.float64)
    noise = np.random.default_rng(seed).normal(0.0, float(sigma_nm), size=ca.shape)
    return reprojected(frames, ca + noise, tica_model)


def rigidly_moved(frames: Mapping, seed: int, tica_model) -> Frames:
    """Each frame rotated at random and moved by up to 1 nm (seeded), TICs projected again: a transformation no
    score may see."""
    from scipy.spatial.transform import Rotation

    ca = np.asarray(frames["ca"], dtype=np.float64)
    rng = np.random.default_rng(seed)
    rotations = Rotation.random(len(ca), random_state=rng).as_matrix()
    moved = np.einsum("fij,faj->fai", rotations, ca) + rng.uniform(-1.0, 1.0, size=(len(ca), 1, 3))
    return reprojected(frames, moved, tica_model)
