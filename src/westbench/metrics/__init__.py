"""Metrics of an engine against the ground truth."""

from westbench._exports import lazy_exports

#: Each public name and the module it is defined in (loaded on first use).
_NAMES = {
    "MetricSuite": "westbench.metrics.suite",
    "compute_metrics": "westbench.metrics.suite",
    "score_engine": "westbench.metrics.score",
    "wasserstein_1d": "westbench.metrics.divergences",
    "wasserstein_2d": "westbench.metrics.divergences",
    "kl_1d": "westbench.metrics.divergences",
    "kl_2d": "westbench.metrics.divergences",
    "MacrostateModel": "westbench.metrics.metastable",
    "macrostates": "westbench.metrics.metastable",
    "NoiseFloor": "westbench.metrics.noise_floor",
    "divergence_table": "westbench.metrics.tables",
    "coverage_table": "westbench.metrics.tables",
    "compute_to_coverage": "westbench.metrics.tables",
    "write_metric_figures": "westbench.metrics.figures",
    "ControlsEstimator": "westbench.metrics.controls",
    "run_controls": "westbench.metrics.controls",
    "read_controls": "westbench.metrics.controls",
}
__all__ = list(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
