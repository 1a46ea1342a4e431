"""The one thread policy, and the scheduler's view of the device policy: what each job asks for, and how
its engines use it.

Rules take their ``threads:`` from :func:`job_threads` and their ``gpu`` resource from
:func:`job_gpus`; job code takes the threads of each engine from :func:`engine_threads`, out of
the threads Snakemake actually gave the job (a cluster profile's ``set-threads`` included).
Whether work runs on a GPU, and which GPUs a job has, is the device policy's
(:mod:`westbench.runtime.devices`); this module turns it into the rules' ``gpu`` resource and a WE job's
workers. Importing this module imports neither OpenMM nor torch.

The policy, for work ``"openmm"`` (MD, minimization, OpenMM WE engines) and ``"torch"`` (CG
training and CG WE engines):

* one thread for OpenMM on a GPU platform (one host thread feeds the device) or where
  ``platform.deterministic`` asks for repeatable CPU sums (OpenMM's multithreaded sums vary);
  otherwise ``platform.cpu_threads``;
* a WE job with a parallel work manager runs one worker per job thread, each engine on one
  thread, except a job whose engine runs on GPUs: one worker per GPU present
  (:func:`we_gpus_present`, :func:`westbench.runtime.devices.visible_gpus`), so several CUDA
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

from westbench.config import default, section_defaults
from westbench.runtime.devices import WORK, is_gpu_platform, on_gpu, visible_gpus


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


def we_gpus_present(
    work: str,
    platform: Mapping,
    *,
    device: str = default("cg.device"),
    environ: Mapping | None = None,
    nvidia_smi: str | None = None,
) -> int:
    """GPUs a WE job's engine runs on here: 0 for CPU work, else the GPUs visible to the job.

    Parameters
    ----------
    work : {"openmm", "torch"}
        The engine's work (:func:`job_gpus`).
    platform, device
        The ``platform`` section and ``cg.device``.
    environ, nvidia_smi
        As for :func:`westbench.runtime.devices.visible_gpus` (tests describe machines with them).

    Examples
    --------
    >>> cuda = {"name": "CUDA"}
    >>> smi = "GPU 0: H200 (UUID: a)\\nGPU 1: H200 (UUID: b)\\n"
    >>> (we_gpus_present("openmm", cuda, environ={}, nvidia_smi=smi),
    ...  we_gpus_present("openmm", {"name": "CPU"}, environ={}))
    (2, 0)
    >>> we_gpus_present("torch", {"name": "CPU"}, device="cuda", environ={"CUDA_VISIBLE_DEVICES": "3"})
    1
    """
    # torch's "auto" takes a GPU wherever one is present, whatever the OpenMM platform.
    gpu_work = on_gpu(work, _platform(platform)["name"], device, in_job=True)
    return len(visible_gpus(environ, nvidia_smi)) if gpu_work else 0


def we_job_workers(
    work: str,
    job_threads: int,
    work_manager: str,
    platform: Mapping,
    *,
    device: str = default("cg.device"),
    environ: Mapping | None = None,
    nvidia_smi: str | None = None,
) -> int:
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


def job_gpus(work: str, platform: Mapping, *, device: str = default("cg.device")) -> int:
    """GPUs a job of this work asks for (a rule's ``gpu`` resource): 0 or 1.

    ``device`` is ``cg.device`` for torch work (``auto``, ``cpu`` or ``cuda``).
    """
    return int(on_gpu(work, _platform(platform)["name"], device))
