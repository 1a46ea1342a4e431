"""westbench: benchmark molecular-dynamics engines and coding agents in one Snakemake DAG.

The public names (``__all__``): the stages as subpackages (:mod:`westbench.prepare`, :mod:`westbench.we`,
:mod:`westbench.metrics`, ...), each with its own ``__all__``, the shared names every stage uses, and the
workflow's plan (:mod:`westbench.plan`: which jobs exist, where their files live, what each reads). Each loads
on first use, so ``import westbench`` stays cheap. The API reference is built from the docstrings by
``tools/api_docs.py`` (pdoc).
"""

from westbench import _moved
from westbench._exports import lazy_exports

_moved.install()  # the old names of moved modules, for the workflow's scripts (westbench._moved)

__version__ = "0.1.0"

#: Each public name and the module it is defined in (loaded on first use).
_NAMES = {
    "validate_config": "westbench.config",
    "section_defaults": "westbench.config",
    "load_schema": "westbench.config",
    "WestbenchError": "westbench.errors",
    "ConfigError": "westbench.errors",
    "read_frames": "westbench.io.frames",
    "write_frames": "westbench.io.frames",
    "CoverageGrid": "westbench.geometry.coverage_grid",
    "TicaModel": "westbench.tica",
}
#: The subpackages and shared modules, public under their own names.
_MODULES = [
    f"westbench.{name}"
    for name in (
        "prepare",
        "structures",
        "groundtruth",
        "tica",
        "engines",
        "we",
        "cg",
        "external",
        "metrics",
        "report",
        "agents",
        "calibration",
        "simulation",
        "plan",
        "runtime",
        "geometry",
        "io",
        "presentation",
    )
]
__all__ = ["__version__", *_NAMES, *(module.rsplit(".", 1)[-1] for module in _MODULES)]
__getattr__, __dir__ = lazy_exports(__name__, _NAMES, _MODULES)
