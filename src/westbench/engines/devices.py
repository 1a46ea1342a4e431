"""Which accelerator a WE worker uses, how many workers a GPU job runs, and how many walkers it batches.

The GPUs a job has are the ones CUDA will show it: the entries of ``CUDA_VISIBLE_DEVICES`` when that
is set (SLURM sets it for ``--gpus``; an empty value means none), else the GPUs ``nvidia-smi -L``
lists, else none (:func:`visible_gpus`). WESTPA's work managers number their workers
(``WM_PROCESS_INDEX``: the ``processes`` manager's workers on this node, a ZeroMQ node's workers);
worker ``i`` uses device ``i mod n`` of the ``n`` GPUs present (:func:`worker_device`), and a GPU
job runs one worker per GPU (:func:`westbench.resources.we_workers`). Without a GPU a worker has no
device (None): nothing asks for a device index that does not exist.

Examples
--------
>>> worker_device({"WM_PROCESS_INDEX": "3", "CUDA_VISIBLE_DEVICES": "0,1"})
1
>>> worker_device({"WM_PROCESS_INDEX": "1", "CUDA_VISIBLE_DEVICES": "0"})
0
>>> worker_device({"WM_PROCESS_INDEX": "1", "CUDA_VISIBLE_DEVICES": ""}) is None
True
>>> worker_device({}) is None
True
>>> resolve_batch_walkers("auto", "CPU", 147), resolve_batch_walkers("auto", "CUDA", 147), resolve_batch_walkers(8, "CPU", 147)
(1, 147, 8)
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Mapping

from westbench.errors import WestbenchError
from westbench.simulation.platforms import is_gpu_platform

log = logging.getLogger(__name__)

#: Most copies in one context with ``auto`` (measured on an H200: 256 copies of chignolin step in 2x one copy's time).
MAX_AUTO_BATCH = 256
#: Folder of a WE run (``$WEST_SIM_ROOT``) where each worker records what its engine ran on.
RUNTIME_DIR = "engine_runtime"

_GPU_LINE = re.compile(r"^GPU \d+:", re.MULTILINE)


class DeviceError(WestbenchError):
    """A GPU the configuration asks for is not there, or cannot be used from this process."""


def _nvidia_smi_list() -> str | None:
    """``nvidia-smi -L``'s output, or None where the tool is missing or fails."""
    tool = shutil.which("nvidia-smi")
    if tool is None:
        return None
    try:
        result = subprocess.run([tool, "-L"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout if result.returncode == 0 else None


def visible_gpus(environ: Mapping[str, str] | None = None, nvidia_smi: str | None = None) -> list[str]:
    """The GPUs CUDA will show this process, as the names it knows them by.

    Parameters
    ----------
    environ : mapping, optional
        The environment (default ``os.environ``).
    nvidia_smi : str, optional
        ``nvidia-smi -L`` output to read instead of running the tool (tests describe machines with it).

    Returns
    -------
    list of str
        ``CUDA_VISIBLE_DEVICES``'s entries up to the first invalid one (CUDA ignores the rest: ``-1``
        or ``NoDevFiles`` hide every GPU) when it is set, else one index per ``GPU n:`` line of
        ``nvidia-smi -L``, else nothing.

    Examples
    --------
    >>> visible_gpus({"CUDA_VISIBLE_DEVICES": "2,3"})
    ['2', '3']
    >>> visible_gpus({"CUDA_VISIBLE_DEVICES": "-1"}), visible_gpus({"CUDA_VISIBLE_DEVICES": "0,-1,1"})
    ([], ['0'])
    >>> two = "GPU 0: NVIDIA H200 (UUID: GPU-a)\\nGPU 1: NVIDIA H200 (UUID: GPU-b)\\n"
    >>> visible_gpus({}, nvidia_smi=two)
    ['0', '1']
    >>> visible_gpus({}, nvidia_smi="")
    []
    """
    environ = os.environ if environ is None else environ
    if "CUDA_VISIBLE_DEVICES" in environ:
        out = []
        for entry in (e.strip() for e in environ["CUDA_VISIBLE_DEVICES"].split(",")):
            if not entry or entry == "NoDevFiles" or (entry.lstrip("-").isdigit() and int(entry) < 0):
                break
            out.append(entry)
        return out
    listing = _nvidia_smi_list() if nvidia_smi is None else nvidia_smi
    return [str(i) for i in range(len(_GPU_LINE.findall(listing or "")))]


def worker_device(environ: Mapping[str, str] | None = None, nvidia_smi: str | None = None) -> int | None:
    """Device index (as CUDA numbers the visible GPUs) of this WESTPA worker; None outside a numbered
    worker or on a machine without a GPU (see :func:`visible_gpus`)."""
    environ = os.environ if environ is None else environ
    index = environ.get("WM_PROCESS_INDEX")
    if index is None or not index.strip().isdigit():
        return None
    n = len(visible_gpus(environ, nvidia_smi))
    return int(index) % n if n else None


def cuda_initialized() -> bool:
    """Whether this process has initialised CUDA through torch (forked workers then cannot use it).

    Imports nothing: a process that never imported torch has not initialised it through torch.

    Examples
    --------
    >>> cuda_initialized()
    False
    """
    torch = sys.modules.get("torch")
    return bool(torch is not None and torch.cuda.is_initialized())


def refuse_fork_after_cuda(work_manager: str) -> None:
    """Raise :class:`DeviceError` when ``work_manager`` forks workers from a process that initialised CUDA.

    WESTPA's ``processes`` work manager forks its workers from the master; CUDA cannot be used in a
    child forked after the parent initialised it (torch raises "Cannot re-initialize CUDA in forked
    subprocess" in the worker, OpenMM's CUDA contexts fail). Engines therefore touch the GPU only in
    the workers; this check catches code that breaks that rule before any worker starts.

    Examples
    --------
    >>> refuse_fork_after_cuda("processes")  # CUDA not initialised here: fine
    """
    if work_manager == "processes" and cuda_initialized():
        raise DeviceError(
            "we.work_manager 'processes' forks its workers from this process, which has already initialised "
            "CUDA (torch): the workers could not use the GPU. Fix: do not touch the GPU in the master (engines "
            "load models and contexts lazily, in the workers), or set we.work_manager to 'serial' or 'zmq'.")


def resolve_batch_walkers(setting, platform_name: str, max_walkers: int) -> int:
    """Walkers per batch: an integer as given; ``auto`` = 1 on CPU/Reference (copies cost as much as
    walkers run one after another there), up to ``max_walkers`` (capped at :data:`MAX_AUTO_BATCH`) on a GPU."""
    if setting in (None, "auto"):
        return max(1, min(int(max_walkers), MAX_AUTO_BATCH)) if is_gpu_platform(platform_name) else 1
    value = int(setting)
    if value < 1:
        raise ValueError(f"we.batch_walkers must be 'auto' or >= 1, got {setting!r}")
    return value


def record_runtime(record: Mapping, run_dir: str | Path | None = None) -> Path | None:
    """Write what this worker's engine actually ran on (platform, device, captured buckets) to
    ``<run_dir>/engine_runtime/<host>-<pid>.json``; ``run_dir`` defaults to ``$WEST_SIM_ROOT``
    (None, and nothing written, outside a WE run).

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> _ = record_runtime({"platform": "CPU"}, folder)
    >>> [r["platform"] for r in collect_runtime(folder)]
    ['CPU']
    """
    run_dir = run_dir if run_dir is not None else os.environ.get("WEST_SIM_ROOT")
    if not run_dir:
        return None
    folder = Path(run_dir) / RUNTIME_DIR
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{socket.gethostname()}-{os.getpid()}.json"
    record = {**record, "host": socket.gethostname(), "pid": os.getpid(),
              "worker": os.environ.get("WM_PROCESS_INDEX"), "time": time.time()}
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(record, sort_keys=True, default=str))
    temporary.replace(path)
    return path


def collect_runtime(run_dir: str | Path) -> list[dict]:
    """Every worker's record of a WE run (:func:`record_runtime`), oldest first."""
    folder = Path(run_dir) / RUNTIME_DIR
    records = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            records.append(json.loads(path.read_text()))
        except (OSError, ValueError):
            continue
    return sorted(records, key=lambda r: r.get("time", 0.0))
