"""The OpenMM layer every stage shares: platforms and contexts, solvated systems, the integrator and minimizer,
the resumable MD run."""

from westbench._exports import lazy_exports

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
__all__ = list(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
