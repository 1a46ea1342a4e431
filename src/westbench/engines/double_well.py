"""A cheap engine: Brownian dynamics of one particle in a 2-D double well (kT = 1).

V(x, y) = barrier * (x**2 - 1)**2 + y**2 / 2, so the Boltzmann density of x is proportional to
exp(-barrier * (x**2 - 1)**2). It runs a WESTPA simulation in seconds: the WE tests check the
driver against :meth:`DoubleWell.boltzmann_x`, and the WESTPA agent tasks are made from one of its
runs (``tools/make-task-inputs.py``). Name it in a WE config as
``westbench.engines.double_well:DoubleWell``.

Examples
--------
>>> engine = DoubleWell(barrier=2.0, dt=1e-3)
>>> [result] = engine.propagate([engine.basis_state()], n_steps=10, save_every=5, seeds=[1])
>>> result.frames.shape
(2, 1, 3)
>>> round(float(DoubleWell.boltzmann_x(np.array([-2.0, 0.0, 2.0])).sum()), 6)
1.0
"""

import numpy as np

from westbench.engines.base import Engine, SegmentResult, WalkerState


class DoubleWell(Engine):
    """Overdamped Langevin (Brownian) dynamics in the double well; one walker is one particle."""

    def __init__(self, barrier: float = 2.0, dt: float = 1e-3, start_x: float = -1.0):
        self.barrier, self.dt, self.start_x = barrier, dt, start_x

    def basis_state(self):
        return WalkerState(np.array([[self.start_x, 0.0, 0.0]]))

    def beads(self, state):
        return np.asarray(state.positions)

    def force(self, xy):
        x, y = xy[..., 0], xy[..., 1]
        return np.stack([-4 * self.barrier * x * (x**2 - 1), -y], axis=-1)

    def propagate(self, starts, n_steps, save_every, seeds):
        results = []
        for start, seed in zip(starts, seeds):
            rng = np.random.default_rng(seed)
            xy = np.array(start.positions[0, :2], dtype=np.float64)
            frames = []
            for step in range(1, n_steps + 1):
                xy = xy + self.force(xy) * self.dt + np.sqrt(2 * self.dt) * rng.normal(size=2)
                if step % save_every == 0:
                    frames.append([[xy[0], xy[1], 0.0]])
            results.append(
                SegmentResult(np.array(frames, dtype=np.float32), WalkerState(np.array([[xy[0], xy[1], 0.0]])))
            )
        return results

    @staticmethod
    def boltzmann_x(edges, barrier=2.0):
        """Probability of each x bin under the Boltzmann distribution."""
        fine = np.linspace(edges[0], edges[-1], 20001)
        density = np.exp(-barrier * (fine**2 - 1) ** 2)
        mass = np.array([density[(fine >= a) & (fine < b)].sum() for a, b in zip(edges[:-1], edges[1:])])
        return mass / mass.sum()
