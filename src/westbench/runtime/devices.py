"""The one device policy: which platforms are GPUs, which GPUs a job has, and which one each worker uses.

OpenMM's platform selection (:mod:`westbench.simulation.platforms`), the OpenMM and CG engines, CG
training and the workflow's GPU resource (:mod:`westbench.runtime.resources`) all ask this module. Importing
it imports neither OpenMM nor torch.

* GPU platforms: :data:`GPU_PLATFORMS` (:func:`is_gpu_platform`).
* The GPUs a job has are the ones CUDA will show it: the entries of ``CUDA_VISIBLE_DEVICES`` when that
  is set (SLURM sets it for ``--gpus``; an empty value means none), else the GPUs ``nvidia-smi -L``
  lists, else none (:func:`visible_gpus`).
* WESTPA's work managers number their workers (``WM_PROCESS_INDEX``: the ``processes`` manager's
  workers on this node, a ZeroMQ node's workers); worker ``i`` uses device ``i mod n`` of the ``n``
  GPUs present (:func:`worker_device`), and a GPU job runs one worker per GPU
  (:func:`westbench.runtime.resources.we_workers`). Without a GPU a worker has no device (None): nothing asks
  for a device index that does not exist.
* Work on a GPU: OpenMM work on a GPU platform; torch work (CG training and engines) whose
  ``cg.device`` is ``cuda``, or ``auto`` (:func:`on_gpu`); torch's device itself applies this policy in
  :mod:`westbench.cg.torch_device` (the one module of it that imports torch, for the rules that have it).
* Walkers a GPU batches: :func:`resolve_batch_walkers`.

Examples
--------
>>> is_gpu_platform("HIP"), is_gpu_platform("CPU")
(True, False)
>>> worker_device({"WM_PROCESS_INDEX": "3", "CUDA_VISIBLE_DEVICES": "0,1"})
1
>>> worker_device({"WM_PROCESS_INDEX": "1", "CUDA_VISIBLE_DEVICES": "0"})
0
>>> worker_device({"WM_PROCESS_INDEX": "1", "CUDA_VISIBLE_DEVICES": ""}) is None
True
>>> worker_device({}) is None
True
>>> (resolve_batch_walkers("auto", "CPU", 147), resolve_batch_walkers("auto", "CUDA", 147),
...  resolve_batch_walkers(8, "CPU", 147))
(1, 147, 8)
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from typing import Mapping

from westbench.config import default
from westbench.errors import WestbenchError

#: OpenMM platforms that run on an accelerator (one GPU per job; precision and device index apply).
GPU_PLATFORMS = ("CUDA", "OpenCL", "HIP")
#: What a job runs: OpenMM (MD, minimization, OpenMM WE engines) or torch (CG training and CG WE engines).
WORK = ("openmm", "torch")
#: Most copies in one context with ``auto`` (measured on an H200: 256 copies of chignolin step in 2x one copy's time).
MAX_AUTO_BATCH = 256

_GPU_LINE = re.compile(r"^GPU \d+:", re.MULTILINE)


class DeviceError(WestbenchError):
    """A GPU the configuration asks for is not there, or cannot be used from this process."""


def is_gpu_platform(name: str) -> bool:
    """Whether the OpenMM platform ``name`` runs on a GPU (see :data:`GPU_PLATFORMS`)."""
    return name in GPU_PLATFORMS


def on_gpu(work: str, platform_name: str, device: str = default("cg.device"), *, in_job: bool = False) -> bool:
    """Whether a job of this work runs on a GPU.

    Parameters
    ----------
    work : {"openmm", "torch"}
        What the job runs.
    platform_name : str
        The OpenMM platform (``platform.name``).
    device : {"auto", "cpu", "cuda"}
        ``cg.device``, for torch work.
    in_job : bool
        False: the scheduler's view, before the job runs (a rule's ``gpu`` resource): torch's ``auto``
        asks for a GPU where the OpenMM platform is a GPU one. True: in the job, torch's ``auto`` takes
        a GPU wherever one is present, whatever the OpenMM platform (:func:`torch_device`).

    Examples
    --------
    >>> on_gpu("openmm", "CUDA"), on_gpu("openmm", "CPU"), on_gpu("torch", "CPU", "cuda")
    (True, False, True)
    >>> on_gpu("torch", "CPU", "auto"), on_gpu("torch", "CPU", "auto", in_job=True), on_gpu("torch", "CUDA", "cpu")
    (False, True, False)
    """
    if work not in WORK:
        raise ValueError(f"work must be one of {WORK}, got {work!r}")
    if work == "openmm":
        return is_gpu_platform(platform_name)
    if in_job:
        return device != "cpu"
    return device == "cuda" or (device == "auto" and is_gpu_platform(platform_name))


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
            "load models and contexts lazily, in the workers), or set we.work_manager to 'serial' or 'zmq'."
        )


def resolve_batch_walkers(setting, platform_name: str, max_walkers: int) -> int:
    """Walkers per batch: an integer as given; ``auto`` = 1 on CPU/Reference (copies cost as much as
    walkers run one after another there), up to ``max_walkers`` (capped at :data:`MAX_AUTO_BATCH`) on a GPU."""
    if setting in (None, "auto"):
        return max(1, min(int(max_walkers), MAX_AUTO_BATCH)) if is_gpu_platform(platform_name) else 1
    value = int(setting)
    if value < 1:
        raise ValueError(f"we.batch_walkers must be 'auto' or >= 1, got {setting!r}")
    return value
