"""A generated protein of any size: C-alpha frames switching slowly between structures, with fast noise.

The native structure is a random walk of 0.38 nm steps pulled into a globule; each slow process bends it at
its own hinge (the chain beyond the hinge rotated), so long-range distances change while contacts within the
rigid parts stay. Each process is a two-state Markov chain with its own switching probability per frame (the
slow processes TICA should find, slowest first); every atom moves by Gaussian noise (fast). Used by the TICA
tests and benchmarks/tica_large.py.

>>> runs, states, native = synthetic_protein(n_residues=20, n_frames=50, n_runs=2, seed=1)
>>> runs[0].shape, states[0].shape, native.shape
((50, 20, 3), (50, 2), (20, 3))
"""

from __future__ import annotations

from typing import Sequence

import numpy as np


def native_chain(n_residues: int, rng: np.random.Generator) -> np.ndarray:
    """(n_residues, 3) nm: a random walk of 0.38 nm steps pulled into a globule (contacts at all separations)."""
    steps = rng.normal(size=(max(n_residues - 1, 0), 3))
    steps /= np.linalg.norm(steps, axis=1, keepdims=True)
    chain = np.concatenate([np.zeros((1, 3)), np.cumsum(0.38 * steps, axis=0)])
    centre = chain.mean(axis=0)
    radius = 0.6 * n_residues ** (1 / 3)  # nm: about a globular protein's size
    scale = np.minimum(1.0, radius / np.maximum(np.linalg.norm(chain - centre, axis=1, keepdims=True), 1e-9))
    return centre + (chain - centre) * scale


def hinged(chain: np.ndarray, at: int, angle: float) -> np.ndarray:
    """The chain with residues ``at`` onwards rotated by ``angle`` (rad) about residue ``at``."""
    c, s = np.cos(angle), np.sin(angle)
    rotation = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    out = chain.copy()
    out[at:] = (chain[at:] - chain[at]) @ rotation.T + chain[at]
    return out


def synthetic_protein(
    n_residues: int = 250,
    n_frames: int = 2000,
    n_runs: int = 3,
    seed: int = 0,
    noise_nm: float = 0.03,
    switch_probabilities: Sequence[float] = (0.005, 0.03),
):
    """Runs of C-alpha frames (float32, nm), the hidden states of each frame, and the native structure.

    Returns
    -------
    runs : list of ndarray (n_frames, n_residues, 3) float32
    states : list of ndarray (n_frames, n_processes) of 0/1
    native : ndarray (n_residues, 3)
    """
    rng = np.random.default_rng(seed)
    native = native_chain(n_residues, rng)
    n_processes = len(switch_probabilities)
    hinges = [max(1, n_residues * (k + 1) // (n_processes + 1)) for k in range(n_processes)]
    combos = np.array([[(c >> k) & 1 for k in range(n_processes)] for c in range(2**n_processes)])
    structures = []
    for combo in combos:
        chain = native
        for k, bent in enumerate(combo):
            chain = hinged(chain, hinges[k], 0.8) if bent else chain
        structures.append(chain)
    structures = np.asarray(structures, dtype=np.float32)
    runs, states = [], []
    for _ in range(n_runs):
        flips = rng.random((n_frames, n_processes)) < np.asarray(switch_probabilities)
        state = (np.cumsum(flips, axis=0) + rng.integers(2, size=n_processes)) % 2
        index = state @ (1 << np.arange(n_processes))
        noise = rng.normal(scale=noise_nm, size=(n_frames, n_residues, 3)).astype(np.float32)
        runs.append(structures[index] + noise)
        states.append(state)
    return runs, states, native
