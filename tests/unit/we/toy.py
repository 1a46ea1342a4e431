"""Engines for the WE tests: the library's double well, slowed down or recording its device; a bead chain."""

import numpy as np

from westbench.engines.base import Engine, SegmentResult, WalkerState
from westbench.engines.double_well import DoubleWell

__all__ = [
    "DoubleWell",
    "SpreadDoubleWell",
    "SlowDoubleWell",
    "DeviceDoubleWell",
    "Chain",
    "RaisingDoubleWell",
    "ExplodingDoubleWell",
    "WeightedDoubleWell",
    "SigintRecordingDoubleWell",
]


class SpreadDoubleWell(DoubleWell):
    """The same dynamics from several basis states, equally likely (e.g. one in each well: the equilibrium)."""

    def __init__(self, starts=(-1.0, 1.0), **options):
        super().__init__(**options)
        self.starts = [float(x) for x in starts]

    def basis_states(self):
        return [WalkerState(np.array([[x, 0.0, 0.0]])) for x in self.starts]


class WeightedDoubleWell(SpreadDoubleWell):
    """Basis states with probabilities of their own (e.g. an equilibrium that favours one well)."""

    def __init__(self, weights=(0.8, 0.2), **options):
        super().__init__(**options)
        self.weights = [float(w) for w in weights]

    def basis_state_weights(self):
        return self.weights


class SlowDoubleWell(DoubleWell):
    """The same dynamics, slowed down so a test can kill a run in the middle of an iteration."""

    def propagate(self, starts, n_steps, save_every, seeds):
        import time

        results = []
        for start, seed in zip(starts, seeds):
            time.sleep(0.01)
            results += super().propagate([start], n_steps, save_every, [seed])
        return results


class DeviceDoubleWell(DoubleWell):
    """Records, per worker process, the device index it would use (CPU workers standing in for GPUs)."""

    def __init__(self, record_dir: str, **options):
        super().__init__(**options)
        self.record_dir = record_dir

    def propagate(self, starts, n_steps, save_every, seeds):
        import os
        from pathlib import Path

        from westbench.runtime.devices import worker_device

        Path(self.record_dir, f"{os.getpid()}.txt").write_text(f"{worker_device()}\n")
        return super().propagate(starts, n_steps, save_every, seeds)


class SigintRecordingDoubleWell(DoubleWell):
    """Records the SIGINT handler in force while it propagates (in the master under the serial work manager)."""

    def __init__(self, record_dir: str, **options):
        super().__init__(**options)
        self.record_dir = record_dir

    def propagate(self, starts, n_steps, save_every, seeds):
        import signal
        from pathlib import Path

        handler = signal.getsignal(signal.SIGINT)
        Path(self.record_dir, "sigint.txt").write_text(getattr(handler, "__qualname__", repr(handler)))
        return super().propagate(starts, n_steps, save_every, seeds)


class Chain(Engine):
    """Brownian dynamics (kT = 1) of a chain of beads joined by harmonic springs: C-alpha-like frames in nm
    whose pairwise distances move, for runs with a TICA progress coordinate."""

    def __init__(self, n_beads: int = 4, bond_nm: float = 0.38, k: float = 50.0, dt: float = 1e-3):
        self.n_beads, self.bond_nm, self.k, self.dt = n_beads, bond_nm, k, dt

    def basis_state(self):
        positions = np.zeros((self.n_beads, 3))
        positions[:, 0] = self.bond_nm * np.arange(self.n_beads)
        return WalkerState(positions)

    def beads(self, state):
        return np.asarray(state.positions)

    def force(self, x):
        bond = x[1:] - x[:-1]
        length = np.linalg.norm(bond, axis=1, keepdims=True)
        pull = self.k * (length - self.bond_nm) * bond / length
        force = np.zeros_like(x)
        force[:-1] += pull
        force[1:] -= pull
        return force

    def propagate(self, starts, n_steps, save_every, seeds):
        results = []
        for start, seed in zip(starts, seeds):
            rng = np.random.default_rng(seed)
            x = np.array(start.positions, dtype=np.float64)
            frames = []
            for step in range(1, n_steps + 1):
                x = x + self.force(x) * self.dt + np.sqrt(2 * self.dt) * rng.normal(size=x.shape)
                if step % save_every == 0:
                    frames.append(x.copy())
            results.append(SegmentResult(np.array(frames, dtype=np.float32), WalkerState(x)))
        return results


class RaisingDoubleWell(DoubleWell):
    """Propagates ``fail_after`` calls (of this process) normally, then raises: a crashed engine."""

    def __init__(self, fail_after: int = 1, **options):
        super().__init__(**options)
        self.fail_after, self.calls = fail_after, 0

    def propagate(self, starts, n_steps, save_every, seeds):
        self.calls += 1
        if self.calls > self.fail_after:
            raise FloatingPointError(f"toy engine crashed on call {self.calls}: integrator blew up")
        return super().propagate(starts, n_steps, save_every, seeds)


class ExplodingDoubleWell(DoubleWell):
    """Ends every walker that crosses x > ``limit`` with status ``exploded`` and NaN frames, as a CG engine does;
    with ``status="ok"`` it returns the NaN frames as ok (a buggy engine the export must catch)."""

    def __init__(self, limit: float = -0.8, status: str = "exploded", **options):
        super().__init__(**options)
        self.limit, self.status = limit, status

    def propagate(self, starts, n_steps, save_every, seeds):
        results = super().propagate(starts, n_steps, save_every, seeds)
        for i, (start, result) in enumerate(zip(starts, results)):
            if result.frames[-1, 0, 0] > self.limit:
                frames = result.frames.copy()
                frames[-1] = np.nan
                results[i] = SegmentResult(
                    frames,
                    start if self.status != "ok" else result.final,
                    self.status,
                    "x beyond the limit" if self.status != "ok" else "",
                )
        return results
