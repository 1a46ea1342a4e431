"""Choose an OpenMM platform from the configuration, falling back with a log line.

This module owns the list of GPU platforms (:data:`GPU_PLATFORMS`): the workflow's GPU
resource, the engines' batching and the GPU-seconds columns all ask :func:`is_gpu_platform`.
Importing it does not import OpenMM.

Examples
--------
>>> is_gpu_platform("HIP"), is_gpu_platform("CPU")
(True, False)
>>> import openmm
>>> system = openmm.System(); _ = system.addParticle(1.0)
>>> context, name = create_context(system, openmm.VerletIntegrator(0.001), {"name": "Reference"})
>>> name
'Reference'
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Mapping

from westbench.config import section_defaults

if TYPE_CHECKING:
    import openmm

log = logging.getLogger(__name__)

#: OpenMM platforms that run on an accelerator (one GPU per job; precision and device index apply).
GPU_PLATFORMS = ("CUDA", "OpenCL", "HIP")


def is_gpu_platform(name: str) -> bool:
    """Whether the OpenMM platform ``name`` runs on a GPU (see :data:`GPU_PLATFORMS`)."""
    return name in GPU_PLATFORMS


def _with_defaults(config: Mapping) -> dict:
    """The ``platform`` section completed from the schema's defaults (config/schema.yaml), the same ones
    the workflow's validated config carries: a library caller leaving ``deterministic`` out gets the
    repeatable single-threaded CPU platform, and passes ``deterministic: False`` for speed."""
    return {**section_defaults("platform"), **config}


def platform_properties(name: str, config: Mapping, threads: int | None = None) -> dict[str, str]:
    """OpenMM platform properties for ``name`` from the ``platform`` config section.

    ``deterministic`` asks for bitwise-repeatable runs: CUDA's deterministic force
    summation, and one thread on the CPU platform (its multithreaded force and PME
    summation orders vary from run to run; measured on OpenMM 8.6).
    """
    config = _with_defaults(config)
    deterministic = bool(config["deterministic"])
    if is_gpu_platform(name):
        properties = {"Precision": str(config["precision"])}
        if deterministic and name == "CUDA":
            properties["DeterministicForces"] = "true"
        if config.get("device_index") is not None:  # one WE worker per GPU (westbench.engines.devices)
            properties["DeviceIndex"] = str(config["device_index"])
        return properties
    if name == "CPU":
        if deterministic:
            # The CPU PME kernel sizes its own thread pool from this variable, read at context creation.
            os.environ["OPENMM_CPU_THREADS"] = "1"
            return {"Threads": "1"}
        if threads:
            return {"Threads": str(threads)}
    return {}


def create_context(
    system: openmm.System, integrator: openmm.Integrator, config: Mapping, threads: int | None = None
) -> tuple[openmm.Context, str]:
    """Create a Context on the configured platform or the first fallback that works.

    Parameters
    ----------
    system, integrator
        As for :class:`openmm.Context`.
    config : mapping
        The ``platform`` config section: ``name``, ``precision``, ``fallback``.
    threads : int, optional
        Threads for the CPU platform (Snakemake's ``threads``).

    Returns
    -------
    (openmm.Context, str)
        The context and the name of the platform it runs on.
    """
    import openmm

    config = _with_defaults(config)
    wanted = [config["name"], *config["fallback"]]
    tried: list[str] = []
    for name in dict.fromkeys(wanted):
        try:
            platform = openmm.Platform.getPlatformByName(name)
            context = openmm.Context(system, integrator, platform, platform_properties(name, config, threads))
        except Exception as exc:  # OpenMMException for a missing platform or driver
            tried.append(f"{name} ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})")
            continue
        if tried:
            log.warning("OpenMM platform unavailable: %s; falling back to %s", "; ".join(tried), name)
        return context, name
    raise RuntimeError(f"no OpenMM platform could be used: {'; '.join(tried)}")
