"""The one thread and GPU policy: what each job asks the scheduler for, and how its engines use it.

Rules take their ``threads:`` from :func:`job_threads` and their ``gpu`` resource from
:func:`job_gpus`; job code takes the threads of each engine from :func:`engine_threads`, out of
the threads Snakemake actually gave the job (a cluster profile's ``set-threads`` included).
Importing this module imports neither OpenMM nor torch.

The policy, for work ``"openmm"`` (MD, minimization, OpenMM WE engines) and ``"torch"`` (CG
training and CG WE engines):

* one thread for OpenMM on a GPU platform (one host thread feeds the device) or where
  ``platform.deterministic`` asks for repeatable CPU sums (OpenMM's multithreaded sums vary);
  otherwise ``platform.cpu_threads``;
* a WE job with a parallel work manager runs one worker per job thread, each engine on one
  thread, except a job whose engine runs on GPUs: one worker per GPU present
  (:func:`we_gpus_present`, :func:`westbench.engines.devices.visible_gpus`), so several CUDA
  contexts never time-slice one GPU; a serial WE job runs its engine on all of the job's threads;
* one GPU for an OpenMM job on a GPU platform, and for a torch job whose ``cg.device`` is
  ``cuda`` (or ``auto`` in a configuration whose OpenMM platform is a GPU one).

Examples
--------
>>> cpu = {"name": "CPU", "deterministic": False, "cpu_threads": 4}
>>> job_threads("openmm", cpu), job_threads("openmm", {**cpu, "deterministic": True})
(4, 1)
>>> job_threads("openmm", {**cpu, "deterministic": True}, work_manager="processes"), engine_threads(4, "processes")
(4, 1)
>>> job_gpus("openmm", cpu), job_gpus("torch", cpu, device="cuda"), job_gpus("openmm", {**cpu, "name": "HIP"})
(0, 1, 1)
>>> we_workers(16, "processes"), we_workers(16, "processes", gpus=4), we_workers(16, "serial", gpus=4)
(16, 4, 1)
"""

from __future__ import annotations

from typing import Mapping

from westbench.config import section_defaults
from westbench.simulation.platforms import is_gpu_platform

WORK = ("openmm", "torch")


def _platform(platform: Mapping) -> dict:
    return {**section_defaults("platform"), **platform}


def job_threads(work: str, platform: Mapping, *, work_manager: str = "serial") -> int:
    """Threads a job of this work asks for (a rule's ``threads:``).

    Parameters
    ----------
    work : {"openmm", "torch"}
        What the job runs.
    platform : mapping
        The ``platform`` config section (``name``, ``deterministic``, ``cpu_threads``).
    work_manager : str
        A WE job's ``we.work_manager``; anything but ``serial`` runs one worker per thread.
    """
    if work not in WORK:
        raise ValueError(f"work must be one of {WORK}, got {work!r}")
    platform = _platform(platform)
    if work_manager != "serial":
        return int(platform["cpu_threads"])
    if work == "openmm" and (is_gpu_platform(platform["name"]) or platform["deterministic"]):
        return 1
    return int(platform["cpu_threads"])


def we_workers(job_threads: int, work_manager: str, gpus: int = 0) -> int:
    """WESTPA workers of a WE job (of each node, for ``zmq``): one per GPU when its engine runs on
    ``gpus`` > 0 GPUs, else one per thread, under a parallel work manager; one under ``serial``."""
    if work_manager == "serial":
        return 1
    return int(gpus) if int(gpus) > 0 else max(1, int(job_threads))


def we_gpus_present(work: str, platform: Mapping, *, device: str = "auto", environ: Mapping | None = None,
                    nvidia_smi: str | None = None) -> int:
    """GPUs a WE job's engine runs on here: 0 for CPU work, else the GPUs visible to the job.

    Parameters
    ----------
    work : {"openmm", "torch"}
        The engine's work (:func:`job_gpus`).
    platform, device
        The ``platform`` section and ``cg.device``.
    environ, nvidia_smi
        As for :func:`westbench.engines.devices.visible_gpus` (tests describe machines with them).

    Examples
    --------
    >>> cuda = {"name": "CUDA"}
    >>> smi = "GPU 0: H200 (UUID: a)\\nGPU 1: H200 (UUID: b)\\n"
    >>> we_gpus_present("openmm", cuda, environ={}, nvidia_smi=smi), we_gpus_present("openmm", {"name": "CPU"}, environ={})
    (2, 0)
    >>> we_gpus_present("torch", {"name": "CPU"}, device="cuda", environ={"CUDA_VISIBLE_DEVICES": "3"})
    1
    """
    from westbench.engines.devices import visible_gpus

    # torch's "auto" takes a GPU wherever one is present, whatever the OpenMM platform.
    on_gpu = device != "cpu" if work == "torch" else bool(job_gpus(work, platform, device=device))
    return len(visible_gpus(environ, nvidia_smi)) if on_gpu else 0


def we_job_workers(work: str, job_threads: int, work_manager: str, platform: Mapping, *, device: str = "auto",
                   environ: Mapping | None = None, nvidia_smi: str | None = None) -> int:
    """WESTPA workers of a WE job here: :func:`we_workers` with the GPUs :func:`we_gpus_present` finds.

    Examples
    --------
    >>> four = "".join(f"GPU {i}: H200 (UUID: {i})\\n" for i in range(4))
    >>> we_job_workers("openmm", 16, "processes", {"name": "CUDA"}, environ={}, nvidia_smi=four)
    4
    >>> we_job_workers("torch", 16, "processes", {"name": "CPU"}, device="auto", environ={}, nvidia_smi="")
    16
    """
    gpus = we_gpus_present(work, platform, device=device, environ=environ, nvidia_smi=nvidia_smi)
    return we_workers(job_threads, work_manager, gpus=gpus)


def engine_threads(job_threads: int, work_manager: str = "serial") -> int:
    """Threads each engine (one per WE worker) uses of the ``job_threads`` Snakemake gave the job."""
    return max(1, int(job_threads)) if work_manager == "serial" else 1


def job_gpus(work: str, platform: Mapping, *, device: str = "auto") -> int:
    """GPUs a job of this work asks for (a rule's ``gpu`` resource): 0 or 1.

    ``device`` is ``cg.device`` for torch work (``auto``, ``cpu`` or ``cuda``).
    """
    if work not in WORK:
        raise ValueError(f"work must be one of {WORK}, got {work!r}")
    on_gpu_platform = is_gpu_platform(_platform(platform)["name"])
    if work == "torch":
        return int(device == "cuda" or (device == "auto" and on_gpu_platform))
    return int(on_gpu_platform)
