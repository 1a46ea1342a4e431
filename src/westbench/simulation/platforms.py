"""Choose an OpenMM platform from the configuration; a platform that cannot be had is an error.

``platform.name`` is the platform a job runs on. A platform (or GPU device) that cannot be used
raises :class:`PlatformError` naming it and the fix, unless the configuration opts in to
``platform.fallback`` (a list of platforms to try next, empty by default): then the job goes on
on the first one that works, with a warning in the log, and :func:`context_record` says what it
actually ran on (the engines put that in the WE run's ``run.json``).

Which platforms are GPU ones, and which GPU a WE worker uses, is the device policy's
(:mod:`westbench.runtime.devices`: :func:`~westbench.runtime.devices.is_gpu_platform`, the ``device_index`` an
engine puts in the ``platform`` section). Importing this module does not import OpenMM.

Examples
--------
>>> import openmm
>>> system = openmm.System(); _ = system.addParticle(1.0)
>>> context, name = create_context(system, openmm.VerletIntegrator(0.001), {"name": "Reference"})
>>> name
'Reference'
>>> context_record(context)["platform"]
'Reference'
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Mapping

from westbench.config import section_defaults
from westbench.errors import WestbenchError
from westbench.runtime.devices import is_gpu_platform

if TYPE_CHECKING:
    import openmm

log = logging.getLogger(__name__)


class PlatformError(WestbenchError):
    """The configured OpenMM platform or GPU device cannot be used (and no ``platform.fallback`` is allowed)."""


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
        if config.get("device_index") is not None:  # one WE worker per GPU (westbench.runtime.devices.worker_device)
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
    """Create a Context on the configured platform, or on a ``platform.fallback`` the config allows.

    Parameters
    ----------
    system, integrator
        As for :class:`openmm.Context`.
    config : mapping
        The ``platform`` config section: ``name``, ``precision``, ``fallback``, ``device_index``.
    threads : int, optional
        Threads for the CPU platform (Snakemake's ``threads``).

    Returns
    -------
    (openmm.Context, str)
        The context and the name of the platform it runs on.

    Raises
    ------
    PlatformError
        When neither ``platform.name`` nor any platform of ``platform.fallback`` can create the
        context (a missing plugin or driver, a device index that does not exist); the message
        carries OpenMM's own reason for each.

    Examples
    --------
    >>> import openmm
    >>> system = openmm.System(); _ = system.addParticle(1.0)
    >>> try:
    ...     create_context(system, openmm.VerletIntegrator(0.001), {"name": "HIP", "fallback": []})
    ... except PlatformError as error:
    ...     print(str(error).split(":")[0])
    OpenMM platform HIP (platform.name) cannot be used
    """
    import openmm

    config = _with_defaults(config)
    wanted = [config["name"], *(config.get("fallback") or [])]
    tried: list[str] = []
    for name in dict.fromkeys(wanted):
        try:
            platform = openmm.Platform.getPlatformByName(name)
            context = openmm.Context(system, integrator, platform, platform_properties(name, config, threads))
        except Exception as exc:  # OpenMMException for a missing platform, driver or device
            message = " ".join(str(exc).split()) or type(exc).__name__
            log.error("OpenMM platform %s could not be used: %s", name, message)
            tried.append(f"{name} ({message})")
            continue
        if tried:
            log.warning(
                "OpenMM platform %s unavailable; falling back to %s, as platform.fallback allows: %s",
                config["name"],
                name,
                "; ".join(tried),
            )
        return context, name
    device = f", device {config['device_index']}" if config.get("device_index") is not None else ""
    raise PlatformError(
        f"OpenMM platform {config['name']} (platform.name) cannot be used: {'; '.join(tried)}. "
        f"Fix: install the platform's plugin and driver{device and ' or run one worker per GPU present'}, "
        f"set platform.name to a platform this machine has (openmm.Platform.getPlatformByName), or list "
        f"platforms to fall back to in platform.fallback{device}."
    )


def context_record(context: openmm.Context) -> dict:
    """What a context actually runs on: platform name and every platform property's value in it.

    For CUDA and OpenCL the properties include ``DeviceIndex``, ``DeviceName`` and ``Precision``;
    for the CPU platform ``Threads``. This is what the WE run's ``run.json`` records per engine.

    Examples
    --------
    >>> import openmm
    >>> system = openmm.System(); _ = system.addParticle(1.0)
    >>> context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("Reference"))
    >>> context_record(context)
    {'platform': 'Reference', 'properties': {}}
    """
    platform = context.getPlatform()
    properties = {}
    for name in platform.getPropertyNames():
        try:
            properties[name] = platform.getPropertyValue(context, name)
        except Exception:  # a property without a per-context value
            continue
    return {"platform": platform.getName(), "properties": properties}
