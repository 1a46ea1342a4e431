"""torch's device for the CG engine and CG training, by the device policy of :mod:`westbench.runtime.devices`.

Only torch's rules (CG training, CG WE engines) import this module: the policy itself imports neither
OpenMM nor torch, so the OpenMM rules' environments need no torch.

Examples
--------
>>> torch_device("cpu").type, torch_device("auto").type in ("cpu", "cuda")
('cpu', True)
"""

from __future__ import annotations

import os

import torch

from westbench.runtime.devices import DeviceError, worker_device


def torch_device(name: str = "auto") -> torch.device:
    """torch's device for ``cg.device``: ``auto`` = CUDA when present, else the CPU; ``cuda`` where torch
    sees no GPU is an error, never a quiet CPU run."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if str(name).startswith("cuda") and not torch.cuda.is_available():
        raise DeviceError(
            f"cg.device is {name!r} but torch sees no CUDA device here (torch {torch.__version__}, "
            f"CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES')!r}). Fix: run on a GPU node "
            "with a CUDA build of torch, or set cg.device to 'auto' or 'cpu'."
        )
    return torch.device(name)


def worker_torch_device(name: str = "auto") -> torch.device:
    """:func:`torch_device` for a WESTPA worker: ``cuda`` without an index is this worker's GPU
    (:func:`worker_device`), checked to exist and to be usable (not in a process forked after CUDA
    was initialised)."""
    device = torch_device(name)
    if device.type != "cuda":
        return device
    if torch.cuda._is_in_bad_fork():
        raise DeviceError(
            "this WESTPA worker was forked from a process that had initialised CUDA, so it cannot "
            "use the GPU. Fix: keep the master off the GPU, or set we.work_manager to 'zmq' or 'serial'."
        )
    if device.index is None:
        index = worker_device()  # one WE worker per GPU present
        device = torch.device("cuda", 0 if index is None else index)
    count = torch.cuda.device_count()
    if device.index >= count:
        raise DeviceError(
            f"CG engine asked for cuda:{device.index} but this process sees {count} GPU(s) "
            f"(CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES')!r}). Fix: run one "
            "WE worker per GPU present (westbench.runtime.resources.we_job_workers)."
        )
    return device
