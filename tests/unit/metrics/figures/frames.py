"""Small seeded frames for the figure tests: C-alpha chains, TICs in two basins, WE iterations and runs."""

import numpy as np


def frames(n: int, shift: float, seed: int, dims: int = 4) -> dict:
    """``n`` frames (a multiple of 100): 8 C-alphas, ``dims`` TICs around two centres, runs of 50, iterations of 100."""
    rng = np.random.default_rng(seed)
    centre = np.repeat(np.tile([0.0, 3.0], n // 100), 50)[:n]
    return {
        "ca": np.cumsum(rng.normal(0, 0.22, size=(n, 8, 3)), axis=1).astype(np.float32),
        "tics": (centre[:, None] + rng.normal(0, 0.3, (n, dims)) + shift).astype(np.float32),
        "weight": np.full(n, 1 / n),
        "traj": np.repeat(np.arange(n // 50), 50),
        "iteration": np.repeat(np.arange(n // 100) + 1, 100),
    }
