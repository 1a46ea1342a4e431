"""Fit TICA with deeptime on C-alpha distances, streaming: on any trajectories, and on a protein's ground truth.

The covariances are accumulated chunk by chunk (deeptime's ``Covariance.partial_fit``, features computed per chunk
of :data:`~westbench.tica.memory.CHUNK_FRAMES` frames), so memory is O(features^2 + chunk), never
O(frames x features); a progress line
with rate and ETA is logged every :data:`PROGRESS_EVERY_S` seconds, and a stop signal ends the fit between chunks
(:mod:`westbench.runtime.interrupt`). :func:`fit_groundtruth` chooses the features
(:mod:`westbench.tica.pair_selection`),
estimates the memory before fitting (:mod:`westbench.tica.memory`; above ``tica.memory_gb`` it is an error
naming the keys to change), decomposes with LAPACK (:mod:`westbench.tica.decomposition`) and checks the fit is
well posed (:mod:`westbench.tica.wellposed`).

Examples
--------
>>> import numpy as np, tempfile, os
>>> rng = np.random.default_rng(0)
>>> slow = np.repeat(rng.choice([-1.0, 1.0], size=100), 20)    # a two-state slow process
>>> data = np.column_stack([slow + 0.3 * rng.normal(size=2000), rng.normal(size=(2000, 3))])
>>> model = TicaModel.from_deeptime(fit_tica([data], lag=5, dim=2), protein="toy", feature="test",
...                                 n_features=4, lag_frames=5, lag_ps=5.0)
>>> bool(abs(np.corrcoef(model.transform(data)[:, 0], slow)[0, 1]) > 0.9)
True
>>> path = os.path.join(tempfile.mkdtemp(), "tica")
>>> model.save(path)
>>> TicaModel.load(path, protein="toy").lag_frames
5
>>> TicaModel.load(path + ".json", protein="toy").dim
2
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np

from westbench.config import default
from westbench.errors import WestbenchError
from westbench.tica.decomposition import LapackTICA
from westbench.tica.memory import CHUNK_FRAMES, MOMENTS_KEPT, check_memory
from westbench.tica.model import FEATURE_CA_DISTANCES, TicaModel
from westbench.tica.pair_selection import choose_features
from westbench.tica.wellposed import assess, check_data, data_fix

log = logging.getLogger(__name__)

#: Seconds between progress lines of a fit.
PROGRESS_EVERY_S = 30.0


class _Progress:
    """Logs ``done/total`` lagged pairs with rate and ETA, at most every :data:`PROGRESS_EVERY_S` seconds."""

    def __init__(self, total: int, what: str):
        self.total, self.what = total, what
        self.start = self.last = time.monotonic()

    def __call__(self, done: int) -> None:
        now = time.monotonic()
        if now - self.last < PROGRESS_EVERY_S or done >= self.total:
            return
        self.last = now
        rate = done / max(now - self.start, 1e-9)
        log.info(
            "%s: covariances of %d/%d lagged pairs (%.0f %%), %.0f pairs/s, ETA %.0f s",
            self.what,
            done,
            self.total,
            100.0 * done / self.total,
            rate,
            (self.total - done) / max(rate, 1e-9),
        )


def fit_tica(
    trajectories: Sequence[np.ndarray],
    lag: int,
    dim: int | None = None,
    featurize: Callable[[np.ndarray], np.ndarray] | None = None,
    chunk_frames: int = CHUNK_FRAMES,
    what: str = "TICA",
):
    """Fit deeptime's TICA on several trajectories, streaming; lagged pairs never cross a trajectory boundary.

    Parameters
    ----------
    trajectories : sequence of arrays
        Features (n_frames, n_features) each, or, with ``featurize``, what it maps to features (C-alpha frames).
    lag : int
        Lag in frames. Trajectories of at most ``lag`` frames contribute no pairs and are skipped.
    dim : int, optional
        TICs kept.
    featurize : callable, optional
        Maps a chunk of a trajectory to its features (:meth:`PairFeatures.compute`).
    chunk_frames : int
        Frames per covariance update.

    Returns
    -------
    deeptime.decomposition.CovarianceKoopmanModel
    """
    usable = [t for t in trajectories if len(t) > lag]
    if not usable:
        raise WestbenchError(f"TICA lag {lag} frames is longer than every trajectory: lower the lag or run longer")
    covariances = LapackTICA.covariance_estimator(lagtime=lag, ncov=MOMENTS_KEPT)
    total, done = sum(len(t) - lag for t in usable), 0
    progress = _Progress(total, what)
    for trajectory in usable:
        for start in range(0, len(trajectory) - lag, chunk_frames):
            block = trajectory[start : start + chunk_frames + lag]
            features = np.asarray(featurize(block) if featurize is not None else block, dtype=np.float64)
            covariances.partial_fit((features[:-lag], features[lag:]))
            done += len(features) - lag
            progress(done)
    accumulated = time.monotonic()
    model = LapackTICA(lagtime=lag, dim=dim).fit_from_covariances(covariances).fetch_model()
    log.info(
        "%s: covariances of %d lagged pairs in %.1f s, decomposition in %.1f s",
        what,
        total,
        accumulated - progress.start,
        time.monotonic() - accumulated,
    )
    return model


def continuous_pieces(runs: Sequence[Mapping]) -> list[np.ndarray]:
    """The C-alpha frames of every continuous piece of every run (a run split where frames were dropped)."""
    pieces = []
    for run in runs:
        traj = np.asarray(run["traj"])
        cuts = np.flatnonzero(np.diff(traj) != 0) + 1
        pieces.extend(np.split(np.asarray(run["ca"]), cuts))
    return pieces


def runs_from(runs: Sequence) -> str:
    """Where the ground-truth runs come from: ``import`` (groundtruth.source import), ``generate``, or ``mixed``.

    Recorded in model.json and the projected frames' attributes, so that messages name the right fix (more
    imported trajectories, not more starts).
    """
    sources = {"import" if getattr(r, "attrs", {}).get("source") == "import" else "generate" for r in runs}
    return sources.pop() if len(sources) == 1 else "mixed"


def fit_groundtruth(
    frames_paths: Sequence[str | Path],
    protein: str,
    lag_frames: int,
    dim: int,
    *,
    features: Mapping | None = None,
    reference: np.ndarray | None = None,
    seed: int = 0,
    memory_gb: float | None = None,
    min_pairs_per_feature: float | None = None,
):
    """Fit the protein's TICA on all its ground-truth runs and project every frame.

    Parameters
    ----------
    frames_paths : paths
        The ground-truth runs' frames files.
    protein : str
    lag_frames, dim : int
    features : mapping, optional
        ``tica.features`` (schema defaults for missing keys).
    reference : ndarray (n_residues, 3), optional
        C-alpha positions (nm) of the native (prepared) structure, for contact features; None takes the first
        frame of the first run.
    seed : int
        Seeds the random feature choices.
    memory_gb, min_pairs_per_feature : float, optional
        ``tica.memory_gb`` and ``tica.min_pairs_per_feature`` (schema defaults).

    Returns
    -------
    model : TicaModel
        Its metadata holds the well-posedness (``well_posed``, ``why``, ``well_posedness``).
    frames : dict
        All runs joined in the frames contract (``traj`` = run), with ``tics`` filled.
    """
    from westbench.io.frames import read_frames

    memory_gb = default("tica.memory_gb") if memory_gb is None else memory_gb
    if min_pairs_per_feature is None:
        min_pairs_per_feature = default("tica.min_pairs_per_feature")
    runs = [read_frames(p) for p in frames_paths]
    interval = _save_interval(runs, protein)
    n_residues = runs[0]["ca"].shape[1]
    pieces = continuous_pieces(runs)
    chosen = choose_features(n_residues, features, runs[0]["ca"][0] if reference is None else reference, seed)
    log.info("%s: TICA features: %s", protein, chosen.reason)
    lagged = _lagged_pairs(pieces, lag_frames, protein)
    held = 2 * sum(r["ca"].nbytes for r in runs)  # the runs, and their concatenation written out
    need = check_memory(chosen, memory_gb, held, protein)
    enough = max(2, int(lagged // max(min_pairs_per_feature, 1)))  # features the data supports
    fix = data_fix(chosen.how_to_reduce(enough))
    check_data(lagged, chosen.n_features, protein, fix)
    log.info(
        "%s: fitting TICA on %d features, %d lagged pairs of %d runs (estimated peak %.2f GB of tica.memory_gb %g)",
        protein,
        chosen.n_features,
        lagged,
        len(runs),
        need / 2**30,
        memory_gb,
    )
    started = time.monotonic()
    fitted = fit_tica(pieces, lag=lag_frames, dim=dim, featurize=chosen.compute, what=f"{protein}: TICA")
    eigenvalues = fitted.singular_values[: fitted.output_dimension]
    quality = assess(eigenvalues, dim, lagged, chosen.n_features, min_pairs_per_feature, protein, fix)
    model = TicaModel.from_deeptime(
        fitted,
        protein=protein,
        feature=FEATURE_CA_DISTANCES,
        n_features=chosen.n_features,
        lag_frames=lag_frames,
        lag_ps=lag_frames * interval,
        features=chosen,
        n_residues=n_residues,
        runs_from=runs_from(runs),
        trajectories=len(runs),
        frames=int(sum(map(len, runs))),
        **quality.record(),
    )
    if not quality.well_posed:
        log.warning("%s: TICA is not well posed: %s", protein, quality.why)
    frames = _projected(runs, model)
    log.info(
        "%s: TICA fitted and %d frames projected in %.1f s", protein, len(frames["ca"]), time.monotonic() - started
    )
    return model, frames


def _save_interval(runs: Sequence[Mapping], protein: str) -> float:
    """The runs' common interval (ps) between saved frames (NaN when no run has two frames)."""
    intervals = {round(float(np.median(np.diff(r["time_ps"]))), 9) for r in runs if len(r) > 1}
    if len(intervals) > 1:
        raise WestbenchError(
            f"ground-truth runs of '{protein}' were saved at different intervals {sorted(intervals)} ps"
        )
    return intervals.pop() if intervals else float("nan")


def _lagged_pairs(pieces: Sequence[np.ndarray], lag_frames: int, protein: str) -> int:
    """How many (frame, frame + lag) pairs the continuous pieces hold; an error when none."""
    lagged = int(sum(max(0, len(p) - lag_frames) for p in pieces))
    if not lagged:
        raise WestbenchError(
            f"TICA lag {lag_frames} frames is longer than every ground-truth run of '{protein}': lower "
            "tica.lag_frames or run longer"
        )
    return lagged


def _projected(runs: list[dict], model) -> dict:
    """All runs joined (``traj`` = run index), projected on the model's TICs, equally weighted."""
    from westbench.io.frames import concatenate

    for index, run in enumerate(runs):
        run["traj"] = np.full(len(run), index)
    frames = concatenate(runs)
    frames["tics"] = model.project(frames["ca"]).astype(np.float32)
    frames["weight"] = np.full(len(frames["ca"]), 1.0 / len(frames["ca"]))
    return frames
