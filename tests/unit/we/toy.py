"""Engines for the WE tests: the library's double well, slowed down or recording its device."""

from westbench.engines.double_well import DoubleWell

__all__ = ["DoubleWell", "SlowDoubleWell", "DeviceDoubleWell"]


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

        from westbench.engines.devices import worker_device

        Path(self.record_dir, f"{os.getpid()}.txt").write_text(f"{worker_device()}\n")
        return super().propagate(starts, n_steps, save_every, seeds)
