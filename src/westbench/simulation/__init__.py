"""The OpenMM layer every stage shares: platforms and contexts, solvated systems, the integrator and minimizer,
the resumable MD run."""

from westbench._exports import lazy_exports

#: What the Langevin integrator reads of ``preparation`` (:func:`~westbench.simulation.integration.make_integrator`),
#: importable without OpenMM: the WE launcher passes these keys to the OpenMM engines and the plan passes them to the
#: jobs (:mod:`westbench.plan.jobkeys`, job ``integrator``). Their order is the params' text (Snakemake compares it).
INTEGRATOR_KEYS = ("temperature_k", "friction_per_ps", "timestep_fs", "constraint_tolerance")
#: The solvent models :func:`~westbench.simulation.systems.build_system` prepares, importable without OpenMM: an
#: OpenMM engine is named after the one it runs (:mod:`westbench.engines.kinds`), and rule ``system`` makes each.
SOLVENTS = ("implicit", "explicit")

#: Each public name and the module it is defined in (loaded on first use).
_NAMES = {
    "build_system": "westbench.simulation.systems",
    "create_context": "westbench.simulation.platforms",
    "PlatformError": "westbench.simulation.platforms",
    "make_integrator": "westbench.simulation.integration",
    "minimize": "westbench.simulation.integration",
    "MDSettings": "westbench.simulation.md",
    "MDRun": "westbench.simulation.md",
}
__all__ = ["INTEGRATOR_KEYS", "SOLVENTS", *_NAMES]
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
