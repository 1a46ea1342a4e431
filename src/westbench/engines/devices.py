"""Which accelerator a WE worker uses, and how many walkers an engine batches on it.

WESTPA's work managers number their workers (``WM_PROCESS_INDEX``: the ``processes`` manager's
workers on this node, a ZeroMQ node's workers); worker ``i`` uses device ``i mod n``, where ``n``
is the number of devices visible (``CUDA_VISIBLE_DEVICES``, as SLURM sets it for ``--gpus``), else
the number of workers (``WM_N_WORKERS``). Start one worker per GPU.

Examples
--------
>>> worker_device({"WM_PROCESS_INDEX": "3", "CUDA_VISIBLE_DEVICES": "0,1"})
1
>>> worker_device({}) is None
True
>>> resolve_batch_walkers("auto", "CPU", 147), resolve_batch_walkers("auto", "CUDA", 147), resolve_batch_walkers(8, "CPU", 147)
(1, 147, 8)
"""

from __future__ import annotations

import os
from typing import Mapping

from westbench.simulation.platforms import is_gpu_platform

#: Most copies in one context with ``auto`` (measured on an H200: 256 copies of chignolin step in 2x one copy's time).
MAX_AUTO_BATCH = 256


def worker_device(environ: Mapping[str, str] | None = None) -> int | None:
    """Device index of this WESTPA worker (None outside a numbered worker)."""
    environ = os.environ if environ is None else environ
    index = environ.get("WM_PROCESS_INDEX")
    if index is None or not index.strip().isdigit():
        return None
    visible = [d for d in environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if d.strip()]
    n = len(visible) or int(environ.get("WM_N_WORKERS", "0") or 0) or 1
    return int(index) % n


def resolve_batch_walkers(setting, platform_name: str, max_walkers: int) -> int:
    """Walkers per batch: an integer as given; ``auto`` = 1 on CPU/Reference (copies cost as much as
    walkers run one after another there), up to ``max_walkers`` (capped at :data:`MAX_AUTO_BATCH`) on a GPU."""
    if setting in (None, "auto"):
        return max(1, min(int(max_walkers), MAX_AUTO_BATCH)) if is_gpu_platform(platform_name) else 1
    value = int(setting)
    if value < 1:
        raise ValueError(f"we.batch_walkers must be 'auto' or >= 1, got {setting!r}")
    return value
