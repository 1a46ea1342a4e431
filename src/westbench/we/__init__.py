"""Weighted-ensemble sampling with WESTPA 2: configuration, propagator, plugin, runs, export."""

from westbench._exports import lazy_exports

#: Each public name and the module it is defined in (loaded on first use).
_NAMES = {
    "run_we_job": "westbench.we.launch",
    "job_workers": "westbench.we.engine_entry",
    "run_protein_we": "westbench.we.launch",
    "engine_spec": "westbench.we.engine_entry",
    "openmm_engine_spec": "westbench.we.engine_entry",
    "cg_engine_spec": "westbench.we.engine_entry",
    "run_we": "westbench.we.run",
    "WERunError": "westbench.we.run",
    "export_run": "westbench.we.export",
    "export_replicas": "westbench.we.replicas",
    "write_west_cfg": "westbench.we.westcfg",
    "SegmentStore": "westbench.we.store",
    "TicaProgressCoordinate": "westbench.we.pcoord",
    "CoverageTracker": "westbench.we.live_coverage",
}
__all__ = list(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
