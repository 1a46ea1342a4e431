"""Ground truth: starting points, explicit-solvent production runs, their frames."""

from westbench._exports import lazy_exports

#: Each public name and the module it is defined in (loaded on first use).
_NAMES = {
    "generate_starts": "westbench.groundtruth.starts",
    "collect_starts": "westbench.groundtruth.starts",
    "run_groundtruth": "westbench.groundtruth.production",
    "import_run": "westbench.groundtruth.importer",
    "GroundTruthImportError": "westbench.groundtruth.importer",
    "throughput_table": "westbench.groundtruth.throughput",
    "throughput_by_protein": "westbench.groundtruth.throughput",
}
__all__ = list(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
