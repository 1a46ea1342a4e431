"""Generated ground truths for the controls' tests: a right-handed helical C-alpha chain in two states, with TICs
projected by a TICA model fitted on its own distances (so a re-projection gives the frames' TICs back)."""

import numpy as np

from westbench.io.frames import Frames
from westbench.tica.model import FEATURE_CA_DISTANCES, TicaModel
from westbench.tica.pair_selection import PairFeatures

RESIDUES = 8


def helix(turn_degrees: np.ndarray, radius: float = 0.23, rise: float = 0.15) -> np.ndarray:
    """(n, RESIDUES, 3) helices in nm, one per turn angle of their second half (the first half at 100 degrees)."""
    turns = np.where(np.arange(RESIDUES) < RESIDUES // 2, 100.0, np.asarray(turn_degrees)[:, None])
    angle = np.radians(np.cumsum(turns, axis=1))
    z = rise * np.arange(RESIDUES) * np.ones_like(angle)
    return np.stack([radius * np.cos(angle), radius * np.sin(angle), z], axis=-1)


def toy_tica(ca: np.ndarray, dim: int = 4) -> TicaModel:
    """A TICA model whose TICs are the leading principal components of all C-alpha distances of ``ca``."""
    features = PairFeatures.all_pairs(ca.shape[1])
    x = features.compute(ca).astype(np.float64)
    mean = x.mean(axis=0)
    _, _, vt = np.linalg.svd(x - mean, full_matrices=False)
    projection = vt[:dim].T / np.maximum(((x - mean) @ vt[:dim].T).std(axis=0), 1e-12)
    return TicaModel(
        projection,
        -(mean @ projection),
        np.ones(dim),
        "toy",
        FEATURE_CA_DISTANCES,
        features.n_features,
        1,
        1.0,
        features=features,
    )


def helix_groundtruth(runs: int = 24, per_run: int = 40, seed: int = 0, noise_nm: float = 0.02):
    """A ground truth of ``runs`` runs (one state each: two in three folded, turn 100 degrees, the rest 130) of
    ``per_run`` frames, and the TICA model that projected it."""
    rng = np.random.default_rng(seed)
    state = (np.arange(runs) % 3 == 2).astype(float)
    turn = np.repeat(100.0 + 30.0 * state, per_run) + rng.normal(0.0, 4.0, runs * per_run)
    ca = (helix(turn) + rng.normal(0.0, noise_nm, (runs * per_run, RESIDUES, 3))).astype(np.float32)
    model = toy_tica(ca)
    frames = Frames(
        ca=ca,
        tics=model.project(ca).astype(np.float32),
        weight=np.full(runs * per_run, 1.0 / (runs * per_run)),
        traj=np.repeat(np.arange(runs), per_run),
        time_ps=np.tile(np.arange(per_run, dtype=np.float64), runs),
        iteration=np.zeros(runs * per_run, dtype=np.int64),
    )
    frames.attrs = {"protein": "toy", "runs_from": "generate"}
    return frames, model
